// The hooks' one fast path (core/hooks/fastPathRules.ts; src/hooks/fastPath.sh, put into both shell
// scripts by the build): bash, zsh and opencode's in-process plugin must give the same answer on
// the same case, or a copy has drifted.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentRootOf, cleanForFastPath, FAST_PATH_DEFAULT_BYTES, folderToCheck, noSecretKeyword, shellWithFastPath } from '../../../src/core/hooks/fastPathRules';
import { hookSettings, rootCleared, saveFastPath } from '../../../src/core/hooks/shellOutput';
import { repoRoot } from '../../repoRoot';
import { cleanTmp, fakeDist } from './hookDist';

const dist = fakeDist();
const ere = path.join(dist, 'secret-keywords.ere');
const tmp = cleanTmp;

/** A script that sources nothing but the built fast path and prints its verdict on $TEXT for $ROOT. */
const probe = path.join(dist, 'probe.sh');
fs.writeFileSync(
  probe,
  shellWithFastPath(
    `__ac_dir=${JSON.stringify(dist)}\n# @fast-path\n__ac_root_of "$START"\n__ac_settings "$ROOT"\nif __ac_clean "$TEXT"; then c=yes; else c=no; fi\nif __ac_nokey "$TEXT"; then k=yes; else k=no; fi\nif __ac_clean "$TEXT" "$CMD" "$CWD"; then c3=yes; else c3=no; fi\nprintf '%s|%s|%s|%s|%s|%s' "$c" "$__ac_small" "$__ac_fast" "$__ac_r" "$k" "$c3"\n`,
    fs.readFileSync(path.join(repoRoot, 'src/hooks/fastPath.sh'), 'utf8'),
  ),
);

function shellVerdict(shell: 'bash' | 'zsh', root: string, text: string, start = root, env: Record<string, string> = {}): string {
  const r = spawnSync(shell, [probe], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', ROOT: root, TEXT: text, START: start, LANG: 'C.UTF-8', CMD: '', CWD: '', ...env } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

type Case = { name: string; text: string; setup?: (root: string) => void };
const small = FAST_PATH_DEFAULT_BYTES;
const old = new Date(Date.now() - 3600_000);
const cases: Case[] = [
  { name: 'a short clean output', text: 'build ok\n' },
  { name: 'exactly the limit', text: 'step ok\n'.repeat(small / 8) },
  { name: 'one byte over', text: `${'step ok\n'.repeat(small / 8)}x` },
  { name: 'over in bytes, not in characters (é is two bytes)', text: 'é'.repeat(Math.floor(small / 2) + 1) },
  { name: 'a keyword', text: 'the password is here\n' },
  { name: 'a keyword in capitals', text: 'PASSWORD=x\n' },
  { name: 'a token shape', text: `token ghp_${'A1b2C3d4E5'.repeat(4).slice(0, 36)}\n` },
  { name: 'a gitleaks config of the user', text: 'fine\n', setup: (r) => fs.writeFileSync(path.join(r, '.gitleaks.toml'), '') },
  { name: 'config.yaml with no conf yet', text: 'fine\n', setup: (r) => fs.writeFileSync(path.join(r, '.agent/config.yaml'), 'x: 1\n') },
  {
    name: 'a fresh conf raising the limit',
    text: 'step ok\n'.repeat((small + 496) / 8),
    setup: (r) => {
      fs.writeFileSync(path.join(r, '.agent/config.yaml'), 'offload:\n  thresholdTokens: 3000\n');
      fs.utimesSync(path.join(r, '.agent/config.yaml'), old, old);
      fs.mkdirSync(path.join(r, '.agent/.cache'));
      fs.writeFileSync(path.join(r, '.agent/.cache/shell-hook.conf'), `${small + 1000} 1\n`);
    },
  },
  {
    name: 'a conf saying the user has masking rules',
    text: 'fine\n',
    setup: (r) => {
      fs.writeFileSync(path.join(r, '.agent/config.yaml'), 'x: 1\n');
      fs.utimesSync(path.join(r, '.agent/config.yaml'), old, old);
      fs.mkdirSync(path.join(r, '.agent/.cache'));
      fs.writeFileSync(path.join(r, '.agent/.cache/shell-hook.conf'), '2000 0\n');
    },
  },
  {
    name: 'a conf older than config.yaml',
    text: 'fine\n',
    setup: (r) => {
      fs.mkdirSync(path.join(r, '.agent/.cache'));
      fs.writeFileSync(path.join(r, '.agent/.cache/shell-hook.conf'), '2000 1\n');
      fs.utimesSync(path.join(r, '.agent/.cache/shell-hook.conf'), old, old);
      fs.writeFileSync(path.join(r, '.agent/config.yaml'), 'x: 1\n');
    },
  },
  {
    name: 'a conf that is not two numbers',
    text: 'fine\n',
    setup: (r) => {
      fs.writeFileSync(path.join(r, '.agent/config.yaml'), 'x: 1\n');
      fs.utimesSync(path.join(r, '.agent/config.yaml'), old, old);
      fs.mkdirSync(path.join(r, '.agent/.cache'));
      fs.writeFileSync(path.join(r, '.agent/.cache/shell-hook.conf'), 'a[$(touch /tmp/x)] 1\n');
    },
  },
];

test('bash, zsh and the plugin decide alike on every case (size in bytes, keywords, the user\'s rules, the conf)', () => {
  const seen = new Set<string>();
  for (const c of cases) {
    const root = tmp('ac-fast-');
    fs.mkdirSync(path.join(root, '.agent'));
    c.setup?.(root);
    const ts = cleanForFastPath(root, c.text, ere) ? 'yes' : 'no';
    const tsKey = noSecretKeyword(c.text, ere) ? 'yes' : 'no';
    for (const shell of ['bash', 'zsh'] as const) {
      const [verdict, , , , key] = shellVerdict(shell, root, c.text).split('|');
      assert.equal(verdict, ts, `${c.name}: ${shell} says ${verdict}, the plugin ${ts}`);
      assert.equal(key, tsKey, `${c.name}: ${shell}'s keyword check says ${key}, the plugin's ${tsKey}`);
    }
    seen.add(ts);
  }
  assert.deepEqual([...seen].sort(), ['no', 'yes'], 'the cases never exercised both answers');
});

test('an output with its command and folder: one check (one pattern compile) says what the three checks say, in bash and zsh', () => {
  const root = tmp('ac-fast-three-');
  fs.mkdirSync(path.join(root, '.agent'));
  const triples: [string, string, string][] = [
    ['build ok\n', 'npm run build', '/home/me/app'],
    ['build ok\n', 'echo PASSWORD=x', '/home/me/app'],
    ['build ok\n', 'ls', '/home/me/ghp_folder'],
    ['the password is here\n', 'ls', '/home/me/app'],
    [`${'step ok\n'.repeat(small / 8)}x`, 'ls', '/home/me/app'],
    ['a\nb\n', 'printf "a\\nb\\n"', '/tmp/x y'],
  ];
  const seen = new Set<string>();
  for (const [text, cmd, cwd] of triples) {
    const ts = cleanForFastPath(root, text, ere, cmd, cwd) ? 'yes' : 'no';
    assert.equal(ts, cleanForFastPath(root, text, ere) && noSecretKeyword(cmd, ere) && noSecretKeyword(cwd, ere) ? 'yes' : 'no', 'with no verdict on the root, the folder is checked whole');
    for (const shell of ['bash', 'zsh'] as const) {
      const three = shellVerdict(shell, root, text, root, { CMD: cmd, CWD: cwd }).split('|')[5];
      assert.equal(three, ts, `${shell} on ${JSON.stringify([text.slice(0, 30), cmd, cwd])}: ${three}, the plugin's rules ${ts}`);
    }
    seen.add(ts);
  }
  assert.deepEqual([...seen].sort(), ['no', 'yes']);
});

/** A workspace under a folder whose name holds a keyword of the masking rules ("sk" of Desktop), as many users' are. */
function keywordWorkspace(name = 'proj'): string {
  const root = path.join(tmp('ac-fast-kw-'), 'Desktop', name);
  fs.mkdirSync(path.join(root, '.agent'), { recursive: true });
  assert.equal(noSecretKeyword(root, ere), false, `${root} should hold a keyword`);
  return root;
}
const writeConf = (root: string, text: string): void => {
  fs.mkdirSync(path.join(root, '.agent/.cache'), { recursive: true });
  fs.writeFileSync(path.join(root, '.agent/.cache/shell-hook.conf'), text);
};

test('a workspace under a keyword folder: with Node\'s verdict on its path in the conf, only the folder below it is checked; bash, zsh and the plugin agree', () => {
  const root = keywordWorkspace();
  const seen = new Set<string>();
  const confs: [string, string | undefined][] = [
    ['no conf (a fresh workspace)', undefined],
    ['a conf of an older set-up (one line)', '2000 1\n'],
    ['the verdict for this path', `2000 1\n1 ${root}\n`],
    ['the verdict with no newline at its end', `2000 1\n1 ${root}`],
    ['the masker changed this path', `2000 1\n0 ${root}\n`],
    ['the verdict for where the workspace was before it moved', `2000 1\n1 ${path.dirname(root)}/old\n`],
    ['the verdict for a folder above the workspace', `2000 1\n1 ${path.dirname(root)}\n`],
  ];
  const folders = [root, path.join(root, 'src/app'), path.join(root, 'api-keys'), `${root}-sk`, path.join(path.dirname(root), 'other')];
  const expectYes = new Set([`the verdict for this path|${root}`, `the verdict for this path|${path.join(root, 'src/app')}`, `the verdict with no newline at its end|${root}`, `the verdict with no newline at its end|${path.join(root, 'src/app')}`]);
  for (const [name, conf] of confs) {
    fs.rmSync(path.join(root, '.agent/.cache'), { recursive: true, force: true });
    if (conf !== undefined) writeConf(root, conf);
    for (const cwd of folders) {
      const ts = cleanForFastPath(root, 'build ok\n', ere, 'npm run build', cwd) ? 'yes' : 'no';
      assert.equal(ts, expectYes.has(`${name}|${cwd}`) ? 'yes' : 'no', `${name}, folder ${cwd}: the plugin says ${ts}`);
      for (const shell of ['bash', 'zsh'] as const) {
        const three = shellVerdict(shell, root, 'build ok\n', root, { CMD: 'npm run build', CWD: cwd }).split('|')[5];
        assert.equal(three, ts, `${name}, folder ${cwd}: ${shell} says ${three}, the plugin ${ts}`);
      }
      seen.add(ts);
    }
  }
  assert.deepEqual([...seen].sort(), ['no', 'yes']);
  // The verdict clears the folder, never the output or the command.
  writeConf(root, `2000 1\n1 ${root}\n`);
  for (const [text, cmd] of [[`token ${'ghp_'}x\n`, 'ls'], ['ok\n', 'echo PASSWORD=x']]) {
    assert.equal(cleanForFastPath(root, text, ere, cmd, root), false);
    for (const shell of ['bash', 'zsh'] as const) assert.equal(shellVerdict(shell, root, text, root, { CMD: cmd, CWD: root }).split('|')[5], 'no', shell);
  }
});

test('which part of a folder is checked: below the cleared root from its "/" on, else the whole folder (strings compared as they are)', () => {
  assert.equal(folderToCheck(undefined, '/home/pat/app'), '/home/pat/app');
  assert.equal(folderToCheck('/home/pat/app', '/home/pat/app'), '');
  assert.equal(folderToCheck('/home/pat/app', '/home/pat/app/src'), '/src');
  assert.equal(folderToCheck('/home/pat/app', '/home/pat/apple'), '/home/pat/apple');
  assert.equal(folderToCheck('/home/pat/app', '/home/pat/APP/src'), '/home/pat/APP/src');
  assert.equal(folderToCheck('/home/pat/app', '/home/pat'), '/home/pat');
});

test('Node leaves its verdict on the workspace\'s path in the conf: cleared for a keyword folder, not for a path holding a secret shape or naming one at its end; the shell reads it', async () => {
  const root = keywordWorkspace();
  assert.equal(rootCleared(root), true);
  await saveFastPath(root, await hookSettings(root));
  assert.equal(fs.readFileSync(path.join(root, '.agent/.cache/shell-hook.conf'), 'utf8'), `${FAST_PATH_DEFAULT_BYTES} 1\n1 ${root}\n`);
  for (const shell of ['bash', 'zsh'] as const) assert.equal(shellVerdict(shell, root, 'ok\n', root, { CMD: 'ls', CWD: path.join(root, 'src') }).split('|')[5], 'yes', shell);
  const token = 'ghp' + '_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
  // The second is cleared alone but names a secret with what follows it ("Bearer /src" would be masked).
  for (const bad of [keywordWorkspace(token), keywordWorkspace('Authorization: Bearer')]) {
    assert.equal(rootCleared(bad), false, bad);
    await saveFastPath(bad, await hookSettings(bad));
    assert.equal(fs.readFileSync(path.join(bad, '.agent/.cache/shell-hook.conf'), 'utf8').split('\n')[1], `0 ${bad}`);
    for (const shell of ['bash', 'zsh'] as const) assert.equal(shellVerdict(shell, bad, 'ok\n', bad, { CMD: 'ls', CWD: path.join(bad, 'src') }).split('|')[5], 'no', `${shell} in ${bad}`);
  }
});

test('the limit is the offload threshold\'s sure bytes, and each rule case gives the answer a user expects', () => {
  const expect: Record<string, string> = {
    'a short clean output': 'yes',
    'exactly the limit': 'yes',
    'one byte over': 'no',
    'over in bytes, not in characters (é is two bytes)': 'no',
    'a keyword': 'no',
    'a keyword in capitals': 'no',
    'a token shape': 'no',
    'a gitleaks config of the user': 'no',
    'config.yaml with no conf yet': 'no',
    'a fresh conf raising the limit': 'yes',
    'a conf saying the user has masking rules': 'no',
    'a conf older than config.yaml': 'no',
    'a conf that is not two numbers': 'no',
  };
  for (const c of cases) {
    const root = tmp('ac-fast-');
    fs.mkdirSync(path.join(root, '.agent'));
    c.setup?.(root);
    assert.equal(cleanForFastPath(root, c.text, ere) ? 'yes' : 'no', expect[c.name], c.name);
  }
  assert.equal(FAST_PATH_DEFAULT_BYTES, 2000);
});

test('the workspace is found the same way: AGENT_CONTEXT_ROOT, else the nearest folder above holding .agent/', () => {
  const root = tmp('ac-fast-root-');
  fs.mkdirSync(path.join(root, '.agent'));
  const deep = path.join(root, 'a', 'b');
  fs.mkdirSync(deep, { recursive: true });
  const none = tmp('ac-fast-none-');
  for (const shell of ['bash', 'zsh'] as const) {
    assert.equal(shellVerdict(shell, root, 'x', deep).split('|')[3], agentRootOf(deep));
    assert.equal(shellVerdict(shell, root, 'x', none).split('|')[3], '');
    assert.equal(shellVerdict(shell, root, 'x', none, { AGENT_CONTEXT_ROOT: root }).split('|')[3], root);
  }
  assert.equal(agentRootOf(deep), root);
  assert.equal(agentRootOf(none), undefined);
});

test('the shipped scripts carry the fast path, and no other copy of its rules', () => {
  for (const f of ['agent-context-shell.sh', 'agent-hook.sh']) {
    const text = fs.readFileSync(path.join(dist, f), 'utf8');
    assert.match(text, /^__ac_clean\(\) \{$/m, f);
    assert.doesNotMatch(text, /^# @fast-path$|@SMALL_DEFAULT@/m, f);
    const code = text.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n');
    assert.equal((code.match(/shell-hook\.conf/g) ?? []).length, 1, `${f}: shell-hook.conf is read in more than one place`);
    assert.equal((code.match(/=2000\b/g) ?? []).length, 2, `${f}: the default appears elsewhere than the fast path's two`);
  }
  for (const f of ['src/hooks/shellCapture.sh', 'src/hooks/agentHook.sh', 'src/hooks/opencodePlugin.ts']) {
    const text = fs.readFileSync(path.join(repoRoot, f), 'utf8');
    assert.doesNotMatch(text, /\b2000\b|shell-hook\.conf|secret-keywords\.ere"? *\|\|/, `${f} has its own copy of a fast-path rule`);
  }
});
