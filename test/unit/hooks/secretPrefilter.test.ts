// The shell hooks hand a small output to the model without Node only when the secret prefilter
// does not match it; that is safe only if the prefilter matches everything the masker would change.
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { maskSecrets } from '../../../src/core/secrets';
import { noSecretKeyword } from '../../../src/core/hooks/fastPathRules';
import { maskerKeywords, secretPrefilterEre } from '../../../src/core/hooks/secretPrefilter';
import { repoRoot } from '../../repoRoot';

const secrets = path.join(repoRoot, 'test/fixtures/secrets');

// The prefilter file as the build writes it (dist/secret-keywords.ere), read by the function the hooks run.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-prefilter-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const ereFile = path.join(tmp, 'secret-keywords.ere');
fs.writeFileSync(ereFile, `${secretPrefilterEre()}\n`);
/** The hooks' TypeScript side (opencode's plugin): does `text` hold a keyword of the masking rules? */
const prefilterMatches = (text: string): boolean => !noSecretKeyword(text, ereFile);

/** Every text the check runs over: the true-positive corpus (line by line), the ordinary files, the masker tests' own examples. */
function texts(): string[] {
  const out: string[] = [];
  for (const l of fs.readFileSync(path.join(secrets, 'true-positives.jsonl'), 'utf8').split('\n')) {
    if (!l.trim()) continue;
    const tp = JSON.parse(l) as { line: string; secret: string };
    out.push(tp.line, tp.secret);
  }
  for (const f of fs.readdirSync(path.join(secrets, 'ordinary'))) out.push(...fs.readFileSync(path.join(secrets, 'ordinary', f), 'utf8').split('\n'));
  // The string literals of the masker's and gitleaks' tests, the rules' own examples.
  for (const f of ['secrets/masker.test.ts', 'secrets/gitleaks.test.ts']) {
    const src = fs.readFileSync(path.join(repoRoot, 'test/unit', f), 'utf8');
    for (const m of src.matchAll(/'((?:[^'\\\n]|\\.){6,})'|`((?:[^`\\]|\\.){6,})`|"((?:[^"\\\n]|\\.){6,})"/g)) out.push((m[1] ?? m[2] ?? m[3]).replace(/\\n/g, '\n'));
  }
  return out;
}

test('the prefilter matches every text the built-in masker changes (secret corpus, ordinary outputs, the rules\' examples)', () => {
  let changed = 0;
  const missed: string[] = [];
  for (const t of texts()) {
    if (maskSecrets(t).text === t) continue;
    changed++;
    if (!prefilterMatches(t)) missed.push(t.slice(0, 120));
  }
  assert.ok(changed > 500, `only ${changed} texts were changed by the masker: the corpus did not load`);
  assert.deepEqual(missed, []);
});

test('the same texts with every letter case-flipped still match (the masker finds keywords in any case)', () => {
  for (const t of texts()) {
    const flipped = t.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
    if (maskSecrets(flipped).text !== flipped) assert.ok(prefilterMatches(flipped), flipped.slice(0, 120));
  }
});

test('a text holding none of the keywords passes the masker unchanged, PEM and Kubernetes blocks included', () => {
  for (const t of ['hello\n', 'compiling module_1.c ... ok\n', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n', 'apiVersion: v1\nkind: ConfigMap\n']) {
    assert.equal(prefilterMatches(t), false, t);
    assert.equal(maskSecrets(t).text, t);
  }
  assert.ok(prefilterMatches('-----BEGIN RSA PRIVATE KEY-----'));
  assert.ok(prefilterMatches('data:\n  password: aGVsbG8=\n'));
});

test('bash and zsh compile it as the hooks do and agree with it', () => {
  const ere = secretPrefilterEre();
  assert.ok(maskerKeywords().length > 100);
  const samples = ['nothing to see here', 'export GITHUB_TOKEN=ghp_x', 'AWS_SECRET_ACCESS_KEY=abc', 'Authorization: Bearer x', '"DATA": {', 'plain output line'];
  for (const shell of ['bash', 'zsh']) {
    const script = shell === 'bash' ? 'while IFS= read -r l; do [[ ${l,,} =~ $RE ]] && echo 1 || echo 0; done' : 'while IFS= read -r l; do [[ ${(L)l} =~ $RE ]] && echo 1 || echo 0; done';
    const r = spawnSync(shell, ['-c', script], { input: samples.join('\n') + '\n', encoding: 'utf8', env: { ...process.env, RE: ere, LC_ALL: 'C' } });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n').map(Number), samples.map((s) => (prefilterMatches(s) ? 1 : 0)), shell);
  }
});
