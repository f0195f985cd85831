// The JSON(C) edits every set-up makes (core/setup/agents/configFiles.ts).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { jsonSet } from '../../../../src/core/setup/agents/configFiles';

test('removing the last element of a list leaves valid JSON, and undoes an appended entry byte for byte (jsonc-parser 3.3.1 cut a character too few)', () => {
  assert.equal(jsonSet('{"a": [{ "x": 1 },{"y": 2}]}', ['a', 1], undefined), '{"a": [{ "x": 1 }]}');
  assert.equal(jsonSet('{"a": [1,2,3]}', ['a', 2], undefined), '{"a": [1,2]}');
  assert.equal(jsonSet('{"a": [1,2,3]}', ['a', 1], undefined), '{"a": [1,3]}');
  assert.equal(jsonSet('{"a": [1]}', ['a', 0], undefined), '{"a": []}');
  const mine = '{\n  // mine\n  "hooks": { "SessionStart": [{ "hooks": [{ "type": "command", "command": "echo hi" }] }] }\n}\n';
  const withOurs = jsonSet(mine, ['hooks', 'SessionStart', 1], { hooks: [{ type: 'command', command: 'ours' }] });
  assert.notEqual(withOurs, mine);
  assert.equal(jsonSet(withOurs, ['hooks', 'SessionStart', 1], undefined), mine);
});
