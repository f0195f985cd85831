// Bundled on its own as dist/tokenizer.js (the o200k tables are a few MB) and required at first use.
export { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
