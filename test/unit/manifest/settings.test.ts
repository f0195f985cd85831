// The settings a user sees in the Settings UI (package.json's contributes.configuration) are the ones
// the code reads, with the same defaults and bounds: both come from core/settingsTable.ts's table
// (the extension, the MCP server's .agent/config.yaml and the hooks all read through it).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../../repoRoot';
import { settingValue, SETTINGS, type SettingKey, type SettingSpec } from '../../../src/core/settingsTable';
import { DEFAULT_TOOL_CONFIG, loadAgentConfig, retentionFrom, toolConfigFrom } from '../../../src/core/config';
import { DEFAULT_RETENTION } from '../../../src/core/scratch/retention';

interface Declared { type: string; default: unknown; minimum?: number; maximum?: number; items?: { type: string } }

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
const declared: Record<string, Declared> = pkg.contributes.configuration.properties;
const TYPE: Record<SettingSpec['kind'], string> = { int: 'integer', number: 'number', bool: 'boolean', string: 'string', strings: 'array' };

test('package.json declares exactly the table\'s settings, with its defaults, types and bounds', () => {
  const table = SETTINGS as Record<string, SettingSpec>;
  assert.deepEqual(Object.keys(declared).sort(), Object.keys(table).map((k) => `agentContext.${k}`).sort());
  for (const [key, spec] of Object.entries(table)) {
    const d = declared[`agentContext.${key}`];
    assert.deepEqual(
      { type: d.type, default: d.default, minimum: d.minimum, maximum: d.maximum, items: d.items?.type },
      { type: TYPE[spec.kind], default: spec.default, minimum: spec.min, maximum: spec.max, items: spec.kind === 'strings' ? 'string' : undefined },
      key,
    );
  }
});

test('with nothing set, every reader answers the declared default', () => {
  const none = (): undefined => undefined;
  assert.deepEqual(toolConfigFrom(none), DEFAULT_TOOL_CONFIG);
  assert.equal(DEFAULT_TOOL_CONFIG.offloadThresholdTokens, declared['agentContext.offload.thresholdTokens'].default);
  assert.equal(DEFAULT_TOOL_CONFIG.referenceMaxBytes, declared['agentContext.reference.maxBytes'].default);
  assert.equal(DEFAULT_TOOL_CONFIG.runDefaultTimeoutSec, declared['agentContext.run.defaultTimeoutSec'].default);
  assert.equal(DEFAULT_TOOL_CONFIG.readDefaultLines, declared['agentContext.read.defaultLines'].default);
  assert.equal(DEFAULT_TOOL_CONFIG.grepMaxResults, declared['agentContext.grep.maxResults'].default);
  assert.deepEqual(retentionFrom(none), DEFAULT_RETENTION);
  assert.deepEqual(DEFAULT_RETENTION, {
    maxAgeHours: declared['agentContext.scratch.maxAgeHours'].default,
    maxFiles: declared['agentContext.scratch.maxFiles'].default,
    maxTotalMB: declared['agentContext.scratch.maxTotalMB'].default,
  });
  for (const key of Object.keys(SETTINGS) as SettingKey[]) assert.deepEqual(settingValue(key, undefined), declared[`agentContext.${key}`].default, key);
});

test('a value of the wrong kind gives the default; a number out of bounds is brought inside them', () => {
  assert.equal(settingValue('grep.maxResults', 'many'), 100);
  assert.equal(settingValue('grep.maxResults', 0), 1);
  assert.equal(settingValue('grep.maxResults', 1e9), 10_000);
  assert.equal(settingValue('grep.maxResults', 12.7), 12);
  assert.equal(settingValue('terminals.maxFileMB', 0.01), 0.1);
  assert.equal(settingValue('terminals.maxFileMB', 2.5), 2.5);
  assert.equal(settingValue('scratch.maxAgeHours', -3), 0, 'a negative limit is "no limit" (0), never the default of 24 h');
  assert.equal(settingValue('terminals.capture', 'yes'), true);
  assert.deepEqual(settingValue('run.allowList', ['npm test', 3, ' ', 'git status*']), ['npm test', 'git status*']);
});

test('.agent/config.yaml: a value of the wrong kind for any declared setting is an error naming the key and line', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-settings-'));
  try {
    fs.writeFileSync(path.join(dir, 'config.yaml'), 'grep:\n  maxResults: 50\nscratch:\n  maxAgeHours: soon\n');
    const r = await loadAgentConfig(dir);
    assert.equal(r.ok, false);
    if (!r.ok) assert.deepEqual(r.error, { file: '.agent/config.yaml', line: 4, message: 'scratch.maxAgeHours must be a number' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
