import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { commandFromExecString, readShellWord } from '../../../src/core/hooks/execString';

test('Claude Code (2.1.197 and 2.1.332): the eval argument, unquoted', () => {
  const v197 = "source /h/.claude/shell-snapshots/snapshot-bash-1-x.sh 2>/dev/null || true && . /d/agent-context-shell.sh\n: && shopt -u extglob 2>/dev/null || true && eval 'bash build.sh' < /dev/null && pwd -P >| /tmp/claude-653b-cwd";
  assert.equal(commandFromExecString(v197), 'bash build.sh');
  const v332 = "source /s.sh 2>/dev/null || true && . /d/a.sh\n: && \\builtin shopt -u extglob 2>/dev/null || true && { \\builtin unalias -- 'which'; } >/dev/null 2>&1 || true && eval 'echo '\\''it'\\''s'\\'' && eval x' < /dev/null && pwd -P >| /tmp/claude-579b-cwd";
  assert.equal(commandFromExecString(v332), "echo 'it's' && eval x");
});

test('Gemini CLI: the command inside its background-pid wrapper', () => {
  const s = "shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file=/tmp/gemini-shell-x/bgpids.tmp\n(\n  trap 'jobs -p > \"$_bgpids_file\"' EXIT\nnpm test\necho done\n)\n__code=$?\nexit $__code";
  assert.equal(commandFromExecString(s), 'npm test\necho done');
});

test('Codex, opencode, Copilot CLI: the string is the command; an unknown wrapping is kept whole', () => {
  assert.equal(commandFromExecString('bash build.sh'), 'bash build.sh');
  assert.equal(commandFromExecString("__CODEX_SNAPSHOT_OVERRIDE_0=x\nexec '/bin/bash' -c 'make '\\''all'\\'''"), "make 'all'");
  assert.equal(commandFromExecString('eval $(foo) && pwd -P >| x'), 'eval $(foo) && pwd -P >| x');
});

test('readShellWord reads quotes and escapes, and refuses expansions', () => {
  assert.deepEqual(readShellWord(`'a b'"c\\"d"e\\ f rest`, 0), { word: 'a bc"de f', end: 15 });
  assert.equal(readShellWord('"$HOME"', 0), undefined);
});
