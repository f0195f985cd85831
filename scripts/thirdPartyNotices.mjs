// Writes THIRD_PARTY_NOTICES.md: the licence of every npm package whose code esbuild bundles into
// dist/. esbuild's metafile names each input file that contributes bytes to an output; a file under
// node_modules/ names its package, whose LICENSE file is copied in full (MIT, ISC and BSD require
// the notice to travel with the code). `npm run package` runs this before vsce, so the .vsix always
// carries notices for exactly what its bundles contain; a unit test fails if the committed file
// misses a bundled package.
// Material that is not an npm package but from which code here is derived (e.g. a rule table) is
// listed in scripts/extraNotices.json and appended as "Other material".
//   node scripts/thirdPartyNotices.mjs [--check]   (--check: exit 1 if the file is out of date)
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const NOTICES = path.join(repoRoot, 'THIRD_PARTY_NOTICES.md');

/** The package folder (relative to the repo) that a metafile input path belongs to, if any. */
export function packageDirOf(input) {
  const parts = input.split('/');
  const i = parts.lastIndexOf('node_modules');
  if (i < 0 || i + 1 >= parts.length) return undefined;
  const len = parts[i + 1].startsWith('@') ? 2 : 1;
  return parts.slice(0, i + 1 + len).join('/');
}

const LICENCE_FILE = /^(licen[cs]e|copying)([.-].*)?$/i;

/**
 * Every package with code in a bundle: { name, version, license, dir, outputs, licenseText }.
 * Builds in memory with the same options as esbuild.mjs (nothing is written).
 */
export async function bundledPackages() {
  const { builds } = await import(pathToFileURL(path.join(repoRoot, 'esbuild.mjs')).href);
  const byDir = new Map();
  for (const b of builds) {
    if (!fs.existsSync(path.join(repoRoot, b.entryPoints[0]))) continue;
    const r = await esbuild.build({ ...b, absWorkingDir: repoRoot, write: false, metafile: true, sourcemap: false, logLevel: 'silent' });
    for (const [out, meta] of Object.entries(r.metafile.outputs)) {
      for (const [input, { bytesInOutput }] of Object.entries(meta.inputs)) {
        const dir = bytesInOutput > 0 ? packageDirOf(input) : undefined;
        if (!dir) continue;
        if (!byDir.has(dir)) byDir.set(dir, new Set());
        byDir.get(dir).add(path.relative(repoRoot, path.resolve(repoRoot, out)));
      }
    }
  }
  // Two copies of one name@version (nested node_modules) are one entry.
  const byId = new Map();
  for (const [dir, outputs] of byDir) {
    const abs = path.join(repoRoot, dir);
    const pj = JSON.parse(fs.readFileSync(path.join(abs, 'package.json'), 'utf8'));
    const file = fs.readdirSync(abs).filter((f) => LICENCE_FILE.test(f)).sort()[0];
    if (!file) throw new Error(`${dir} is bundled into ${[...outputs].join(', ')} but has no LICENSE file: add its licence text to scripts/thirdPartyNotices.mjs by hand`);
    const id = `${pj.name}@${pj.version}`;
    if (byId.has(id)) {
      byId.get(id).outputs = [...new Set([...byId.get(id).outputs, ...outputs])].sort();
      continue;
    }
    byId.set(id, {
      name: pj.name,
      version: pj.version,
      license: typeof pj.license === 'string' ? pj.license : (pj.license?.type ?? 'see text'),
      dir,
      outputs: [...outputs].sort(),
      licenseText: fs.readFileSync(path.join(abs, file), 'utf8').replace(/\r\n/g, '\n').trim(),
    });
  }
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

/** scripts/extraNotices.json: [{ name, version, license, usedIn, source, licenseText }]. */
export function extraNotices() {
  const file = path.join(repoRoot, 'scripts/extraNotices.json');
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : [];
}

/** The Markdown file for these packages (deterministic: no dates, sorted). */
export function renderNotices(pkgs, extras = extraNotices()) {
  const fence = (text) => {
    let f = '```';
    while (text.includes(f)) f += '`';
    return `${f}text\n${text}\n${f}`;
  };
  return [
    '# Third-party notices',
    '',
    'The bundles in `dist/` contain code from the npm packages below; their licences follow in full.',
    'Generated from esbuild\'s metafile by `scripts/thirdPartyNotices.mjs` (run by `npm run package`); do not edit by hand.',
    '',
    '| package | version | licence | bundled into |',
    '| --- | --- | --- | --- |',
    ...pkgs.map((p) => `| ${p.name} | ${p.version} | ${p.license} | ${p.outputs.join(', ')} |`),
    '',
    ...pkgs.flatMap((p) => [`## ${p.name} ${p.version} (${p.license})`, '', fence(p.licenseText), '']),
    ...(extras.length === 0
      ? []
      : [
          '# Other material',
          '',
          'Not bundled as a package, but code here is derived from it.',
          '',
          ...extras.flatMap((e) => [`## ${e.name} ${e.version} (${e.license})`, '', `Source: ${e.source}. Used in ${e.usedIn}.`, '', fence(e.licenseText), '']),
        ]),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = renderNotices(await bundledPackages());
  const current = fs.existsSync(NOTICES) ? fs.readFileSync(NOTICES, 'utf8') : '';
  if (process.argv.includes('--check')) {
    if (current !== text) {
      console.error('THIRD_PARTY_NOTICES.md is out of date: run node scripts/thirdPartyNotices.mjs');
      process.exit(1);
    }
  } else if (current !== text) {
    fs.writeFileSync(NOTICES, text);
    console.log(`[notices] wrote ${path.relative(process.cwd(), NOTICES)}`);
  }
}
