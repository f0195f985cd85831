// The JSON(C) edits every set-up makes (core/setup/agents/configFiles.ts).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { jsonSet, parseJsonObject, putServerAndHooks, removeServerAndHooks } from '../../../../src/core/setup/agents/configFiles';

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

test('our server and hook groups go into a settings file of Claude Code\'s shape beside the user\'s own, a second run changes nothing, and the undo leaves only the user\'s own; an event named like the start of another (PostToolUse, PostToolUseFailure) is its own', () => {
  const cmd = (ev: string): string => `bash /x/agent-hook.sh qwen-code ${ev}`;
  const group = (ev: string): object => ({ hooks: [{ type: 'command', command: cmd(ev) }] });
  const server = { command: '/n/node', args: ['/x/mcp.js', '--root', '/w'] };
  const parse = (t: string | undefined): Record<string, unknown> => { const p = parseJsonObject(t, 'settings.json', true); assert.ok(p.ok); return p.value; };
  // The user's own PostToolUse group, and one of ours for PostToolUseFailure left under PostToolUse by hand.
  const mine = '{\n  // mine\n  "hooks": {\n    "PostToolUse": [\n      { "hooks": [{ "type": "command", "command": "audit.sh" }] },\n      { "hooks": [{ "type": "command", "command": "bash /x/agent-hook.sh qwen-code PostToolUseFailure" }] }\n    ]\n  }\n}\n';
  const hooks = [['PostToolUse', group('PostToolUse')], ['PostToolUseFailure', group('PostToolUseFailure')]] as const;
  const first = putServerAndHooks(mine, parse(mine), 'agent-context', server, 'qwen-code', hooks);
  const s = parse(first.text) as { mcpServers: Record<string, unknown>; hooks: Record<string, { hooks: { command: string }[] }[]> };
  assert.deepEqual(s.mcpServers['agent-context'], server);
  assert.deepEqual(s.hooks.PostToolUse.map((g) => g.hooks[0].command), ['audit.sh', cmd('PostToolUseFailure'), cmd('PostToolUse')]);
  assert.deepEqual(s.hooks.PostToolUseFailure.map((g) => g.hooks[0].command), [cmd('PostToolUseFailure')]);
  assert.deepEqual(first.created, ['mcpServers', 'hooks/PostToolUseFailure']);
  assert.match(first.text ?? '', /\/\/ mine/);
  const again = putServerAndHooks(first.text, parse(first.text), 'agent-context', server, 'qwen-code', hooks);
  assert.equal(again.text, first.text);
  assert.deepEqual(again.created, []);
  const undone = removeServerAndHooks(first.text, 'settings.json', parse(first.text), 'agent-context', ['command', 'args'], 'qwen-code', ['PostToolUse', 'PostToolUseFailure'], first.created);
  // Every group of ours goes (the hand-placed one too); the user's own stays.
  assert.deepEqual(parse(undone), { hooks: { PostToolUse: [{ hooks: [{ type: 'command', command: 'audit.sh' }] }] } });
});
