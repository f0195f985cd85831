// Bundled on its own as dist/search-deps.js and required at the first grep or glob (or when a
// .gitleaks.toml is read), so the main bundle stays small: fast-glob with micromatch and braces,
// ignore (git's .gitignore rules) and smol-toml (TOML 1.0) are about 90 KB of it.
export { default as fastGlob } from 'fast-glob';
export { default as ignore } from 'ignore';
// smol-toml's typings are ESM-only; the package ships a CommonJS build, which esbuild bundles.
export const parseToml = (require('smol-toml') as { parse(text: string): unknown }).parse;
