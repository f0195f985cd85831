// Bundled on its own as dist/re2.js (about 150 KB) and required only when the user configures
// secret patterns, so the main bundle stays small.
export * from 're2js';
