// THIRD_PARTY_NOTICES.md must name every package esbuild bundles into dist/ (its licence ships in
// the .vsix). A new bundled dependency, or a new version of one, fails here until the file is
// regenerated (node scripts/thirdPartyNotices.mjs; npm run package also does it).
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../repoRoot';


interface Pkg { name: string; version: string; license: string; outputs: string[]; licenseText: string }
interface NoticesModule {
  bundledPackages(): Promise<Pkg[]>;
  renderNotices(pkgs: Pkg[]): string;
  packageDirOf(input: string): string | undefined;
}
// A variable specifier keeps tsc from resolving (and type-checking) the .mjs script.
const load = (): Promise<NoticesModule> => {
  const url = pathToFileURL(path.join(repoRoot, 'scripts/thirdPartyNotices.mjs')).href;
  return import(url) as Promise<NoticesModule>;
};

describe('third-party notices', () => {
  it('names every package whose code is bundled into dist/, with its licence text', async () => {
    const notices = await load();
    const pkgs = await notices.bundledPackages();
    // The runtime dependencies in package.json that the bundles use are among them.
    for (const name of ['yaml', 'fast-glob', 'zod', '@modelcontextprotocol/server', 'gpt-tokenizer']) {
      assert.ok(pkgs.some((p) => p.name === name), `${name} is bundled`);
    }
    const file = fs.readFileSync(path.join(repoRoot, 'THIRD_PARTY_NOTICES.md'), 'utf8');
    const missing = pkgs.filter((p) => !file.includes(`\n## ${p.name} ${p.version} (${p.license})\n`) || !file.includes(p.licenseText));
    assert.deepEqual(missing.map((p) => `${p.name}@${p.version}`), [],
      'THIRD_PARTY_NOTICES.md lacks these bundled packages: run node scripts/thirdPartyNotices.mjs');
    assert.equal(file, notices.renderNotices(pkgs), 'THIRD_PARTY_NOTICES.md is out of date: run node scripts/thirdPartyNotices.mjs');
  });

  it('maps bundled file paths to their package folders (scoped and nested)', async () => {
    const { packageDirOf } = await load();
    assert.equal(packageDirOf('node_modules/yaml/dist/index.js'), 'node_modules/yaml');
    assert.equal(packageDirOf('node_modules/@nodelib/fs.stat/out/index.js'), 'node_modules/@nodelib/fs.stat');
    assert.equal(packageDirOf('node_modules/@modelcontextprotocol/sdk/node_modules/ajv/dist/ajv.js'), 'node_modules/@modelcontextprotocol/sdk/node_modules/ajv');
    assert.equal(packageDirOf('src/core/plan/planDocument.ts'), undefined);
  });
});
