import * as fs from 'node:fs';
import * as path from 'node:path';

/*
 * VS Code ships ripgrep; where depends on the build: code-server 1.139 has
 * `<appRoot>/node_modules/@vscode/ripgrep-universal/bin/<platform>-<arch>/rg`, older desktop builds
 * `node_modules/@vscode/ripgrep/bin/rg` or its `node_modules.asar.unpacked` twin. Otherwise `rg`
 * on PATH; otherwise none (the built-in engine is used).
 */

const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
const cache = new Map<string, string | undefined>();

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Candidate ripgrep paths under an editor's appRoot, newest layout first. */
export function bundledRipgrepCandidates(appRoot: string): string[] {
  const plat = `${process.platform}-${process.arch}`;
  return [
    path.join(appRoot, 'node_modules', '@vscode', 'ripgrep-universal', 'bin', plat, exe),
    path.join(appRoot, 'node_modules', '@vscode', 'ripgrep', 'bin', exe),
    path.join(appRoot, 'node_modules.asar.unpacked', '@vscode', 'ripgrep', 'bin', exe),
  ];
}

/** Finds ripgrep: bundled with the editor (given its appRoot), else on PATH; cached per appRoot. */
export function findRipgrep(appRoot?: string, envPath = process.env.PATH ?? ''): string | undefined {
  const key = `${appRoot ?? ''}\0${envPath}`;
  if (cache.has(key)) return cache.get(key);
  let found: string | undefined;
  for (const c of appRoot ? bundledRipgrepCandidates(appRoot) : []) {
    if (isExecutable(c)) {
      found = c;
      break;
    }
  }
  if (!found) {
    for (const dir of envPath.split(path.delimiter).filter(Boolean)) {
      const c = path.join(dir, exe);
      if (isExecutable(c)) {
        found = c;
        break;
      }
    }
  }
  cache.set(key, found);
  return found;
}
