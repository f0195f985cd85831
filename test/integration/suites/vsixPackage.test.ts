// What the Marketplace and Open VSX need from the package, checked in the extension as installed
// from agent-context.vsix (run "vsix"): the licence, the changelog for this version, a 128×128 PNG
// icon (SVG icons are refused there) and the third-party notices for what dist/ bundles.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { waitFor } from '../bridge';

const ID = 'agent-context.agent-context';

/** The installed file whose name matches case-insensitively (vsce renames LICENSE to LICENSE.txt, CHANGELOG.md to changelog.md). */
function find(dir: string, name: RegExp): string {
  const hit = fs.readdirSync(dir).find((f) => name.test(f));
  assert.ok(hit, `the package holds ${name} (it has: ${fs.readdirSync(dir).join(', ')})`);
  return path.join(dir, hit);
}

describe('packaged extension: publishing files', () => {
  it('carries LICENSE, CHANGELOG for its version, a 128×128 PNG icon and the third-party notices', async () => {
    const ext = await waitFor(() => vscode.extensions.getExtension(ID), { message: `${ID} is installed` });
    const dir = ext.extensionPath;
    const pkg = ext.packageJSON as { version: string; license: string; icon: string };

    assert.equal(pkg.license, 'MIT');
    assert.match(fs.readFileSync(find(dir, /^licen[cs]e(\.txt|\.md)?$/i), 'utf8'), /^MIT License\n/);

    assert.match(fs.readFileSync(find(dir, /^changelog\.md$/i), 'utf8'), new RegExp(`^## \\[${pkg.version.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'),
      `the changelog has an entry for ${pkg.version}`);

    assert.match(pkg.icon, /\.png$/, 'package.json names a PNG icon');
    const png = fs.readFileSync(path.join(dir, pkg.icon));
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${pkg.icon} is a PNG`);
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128], `${pkg.icon} is 128×128`);

    const notices = fs.readFileSync(find(dir, /^THIRD_PARTY_NOTICES\.md$/), 'utf8');
    // Packages whose code is in the shipped bundles, with their licence text.
    for (const name of ['yaml', 'zod', '@modelcontextprotocol/server', 'gpt-tokenizer']) {
      assert.match(notices, new RegExp(`^## ${name.replace(/[./]/g, '\\$&')} \\S+ \\(`, 'm'), `the notices cover ${name}`);
    }
    assert.match(notices, /Permission is hereby granted, free of charge/);
  });
});
