// Bundled on its own as dist/tokenizer.js (the o200k tables are a few MB) and required at first use,
// either in the calling thread (tokens.ts countTokens) or as the tokenizer's worker thread
// (countTokensAsync): started with workerData { agentContextTokenizer: true }, it answers
// { id, text } with { id, tokens }. Loading the tables costs ~280 ms of CPU (compiling the rank
// list and building its map), a block the extension host and a fresh MCP server's first call
// would otherwise pay on their own thread.
import { parentPort, workerData } from 'node:worker_threads';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

export { countTokens };

if (parentPort && (workerData as { agentContextTokenizer?: boolean } | undefined)?.agentContextTokenizer) {
  const port = parentPort;
  port.on('message', (m: { id: number; text: string }) => {
    let tokens: number | undefined;
    try {
      tokens = countTokens(m.text);
    } catch {
      tokens = undefined; // the caller counts in its own thread
    }
    port.postMessage({ id: m.id, tokens });
  });
  port.postMessage({ ready: true });
}
