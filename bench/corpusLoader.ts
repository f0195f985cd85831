// Loads bench/corpus/: real command outputs with hand-marked error lines (rows 4 and 5).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';

/** One recorded output with the 1-based line numbers a reader would call errors. */
export interface CorpusEntry {
  name: string;
  file: string;
  command: string;
  origin: 'recorded' | 'hand-written';
  text: string;
  errorLines: number[];
}

interface ManifestEntry {
  name: string;
  file: string;
  errors: string;
  command: string;
  origin: 'recorded' | 'hand-written';
}

/** The corpus directory in the source tree, whether running from bench/ (ts) or out/bench/ (js). */
export function corpusDir(): string {
  for (const dir of [path.resolve(__dirname, 'corpus'), path.resolve(__dirname, '../../bench/corpus')]) {
    if (fs.existsSync(path.join(dir, 'manifest.json'))) return dir;
  }
  throw new Error(`bench/corpus/manifest.json not found near ${__dirname}`);
}

/** Reads every manifest entry (gunzipping *.gz) and checks its error lines are in range. */
export function loadCorpus(dir = corpusDir()): CorpusEntry[] {
  const manifestPath = path.join(dir, 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as { entries: ManifestEntry[] };
  return manifest.entries.map((e) => {
    let buf = fs.readFileSync(path.join(dir, e.file));
    if (e.file.endsWith('.gz')) buf = zlib.gunzipSync(buf);
    const text = buf.toString('utf8');
    const errorLines = JSON.parse(fs.readFileSync(path.join(dir, e.errors), 'utf8')) as number[];
    const lineCount = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    for (const l of errorLines) {
      if (!Number.isInteger(l) || l < 1 || l > lineCount) {
        throw new Error(`${path.join(dir, e.errors)}: line ${l} is outside ${e.file} (1..${lineCount})`);
      }
    }
    return { name: e.name, file: e.file, command: e.command, origin: e.origin, text, errorLines };
  });
}
