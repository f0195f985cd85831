import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { StreamingMasker, compileUserPatterns, maskSecrets } from '../../../src/core/secrets';

// Fake secrets assembled at run time so that no scanner mistakes this file for a leak.
const GH = 'ghp' + '_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const GHPAT = 'github' + '_pat_' + '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ';
const AKID = 'AKIA' + 'IOSFODNN7EXAMPLE';
const ASID = 'ASIA' + 'Y34FZKBOKMUTVV7A';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const SLACK = 'xoxb' + '-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx';
const OPENAI = 'sk' + '-proj-Abc123Def456Ghi789Jkl012Mno345';
const ANTHROPIC = 'sk' + '-ant-api03-Abc123Def456Ghi789Jkl012Mno345';
const JWT = 'eyJhbGciOiJIUzI1NiJ9' + '.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const PEM = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun',
  'VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK',
  '-----END RSA PRIVATE KEY-----',
].join('\n');

function only(kind: string, input: string, secret: string): void {
  const r = maskSecrets(input);
  assert.ok(!r.text.includes(secret), `secret survived: ${r.text}`);
  assert.ok(r.text.includes(`[MASKED:${kind}]`), `no ${kind} marker in: ${r.text}`);
  assert.equal(r.count, 1);
}

test('GitHub tokens of every prefix are masked', () => {
  only('github-token', `token ${GH} here\n`, GH);
  only('github-token', `GITHUB_TOKEN=${GHPAT}\n`, GHPAT);
  for (const p of ['gho', 'ghu', 'ghs', 'ghr']) {
    const t = p + GH.slice(3);
    only('github-token', `x ${t}\n`, t);
  }
});

test('AWS access key ids and secret access keys are masked', () => {
  only('aws-access-key-id', `key=${AKID}\n`, AKID);
  only('aws-access-key-id', `${ASID}\n`, ASID);
  only('aws-secret-access-key', `aws_secret_access_key = ${AWS_SECRET}\n`, AWS_SECRET);
  only('aws-secret-access-key', `export AWS_SECRET_ACCESS_KEY="${AWS_SECRET}"\n`, AWS_SECRET);
  assert.equal(maskSecrets(`aws_secret_access_key = ${AWS_SECRET}\n`).text, 'aws_secret_access_key = [MASKED:aws-secret-access-key]\n');
});

test('Slack, OpenAI, Anthropic tokens and JWTs are masked', () => {
  only('slack-token', `SLACK=${SLACK}\n`, SLACK);
  only('openai-key', `OPENAI_API_KEY=${OPENAI}\n`, OPENAI);
  only('anthropic-key', `key: ${ANTHROPIC}\n`, ANTHROPIC);
  only('jwt', `cookie=${JWT};\n`, JWT);
});

test('Authorization headers keep the scheme and lose the credential', () => {
  const r = maskSecrets('curl -H "Authorization: Bearer abc123DEF456ghi789" https://x\n');
  assert.equal(r.text, 'curl -H "Authorization: Bearer [MASKED:bearer-token]" https://x\n');
  const b = maskSecrets('Authorization: Basic dXNlcjpwYXNzd29yZA==\n');
  assert.equal(b.text, 'Authorization: Basic [MASKED:basic-auth]\n');
});

test('passwords in URLs are masked, user and host stay', () => {
  const r = maskSecrets('cloning https://alice:s3cr3t-pw@example.com/repo.git\npostgres://bob:hunter2@db:5432/x\n');
  assert.equal(r.text, 'cloning https://alice:[MASKED:url-password]@example.com/repo.git\npostgres://bob:[MASKED:url-password]@db:5432/x\n');
  assert.equal(r.count, 2);
});

test('PEM private-key blocks spanning lines become one marker line', () => {
  const r = maskSecrets(`before\n${PEM}\nafter\n`);
  assert.equal(r.text, 'before\n[MASKED:private-key]\nafter\n');
  assert.equal(r.count, 1);
  // a key inside one line (JSON with escaped newlines)
  const j = maskSecrets(`{"key":"${PEM.split('\n').join('\\n')}"}\n`);
  assert.equal(j.text, '{"key":"[MASKED:private-key]"}\n');
  // public keys and certificates are not secrets
  const pub = '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----\n';
  assert.equal(maskSecrets(pub).text, pub);
});

test('an unterminated key block is masked up to the first line that is not key material', () => {
  const r = maskSecrets(`${PEM.split('\n').slice(0, 3).join('\n')}\n$ next command output\n`);
  assert.equal(r.text, '[MASKED:private-key]\n$ next command output\n');
});

test('ordinary output is left alone', () => {
  const text = 'sk-learn-is-not-a-key-at-all-really\nghp_short\nAKIA lowercase akiaiosfodnn7example\nhttps://example.com:8080/path\nBearer of bad news\n';
  assert.deepEqual(maskSecrets(text), { text, count: 0 });
});

test('streaming: a secret split across chunks at every position is still masked', () => {
  const line = `export TOKEN=${GH} && curl https://u:pw12345@h/ -H "Authorization: Bearer ${JWT}"\n`;
  const expected = maskSecrets(line).text;
  assert.equal(maskSecrets(line).count, 3);
  for (let i = 1; i < line.length; i++) {
    const m = new StreamingMasker();
    const out = m.push(line.slice(0, i)) + m.push(line.slice(i)) + m.flush();
    assert.equal(out, expected, `split at ${i}`);
    assert.equal(m.count, 3);
  }
});

test('streaming: a PEM block fed one character at a time is masked', () => {
  const text = `a\n${PEM}\nb\n`;
  const m = new StreamingMasker();
  let out = '';
  for (const ch of text) out += m.push(ch);
  out += m.flush();
  assert.equal(out, 'a\n[MASKED:private-key]\nb\n');
});

test('streaming: push emits complete lines at once and holds only the unfinished one', () => {
  const m = new StreamingMasker();
  assert.equal(m.push('line one\nline tw'), 'line one\n');
  assert.equal(m.push('o\n'), 'line two\n');
  assert.equal(m.push('tail'), '');
  assert.equal(m.flush(), 'tail');
});

test('user patterns mask, and bad patterns are errors naming the pattern', () => {
  const { patterns, errors } = compileUserPatterns(['corp-[0-9]{6}', '(?<=x)y', 'a*', '(unclosed']);
  assert.equal(patterns.sources.length, 1);
  assert.equal(errors.length, 3);
  assert.match(errors[0], /secretPatterns\[1\] "\(\?<=x\)y"/);
  assert.match(errors[1], /secretPatterns\[2\] "a\*".*empty/);
  assert.match(errors[2], /secretPatterns\[3\] "\(unclosed"/);
  const r = maskSecrets('id corp-123456 and corp-654321\n', patterns);
  assert.equal(r.text, 'id [MASKED:custom] and [MASKED:custom]\n');
  assert.equal(r.count, 2);
});

test('a catastrophically backtracking user pattern returns on long input', () => {
  const { patterns, errors } = compileUserPatterns(['(a+)+$', '(a|aa)*b', '(x+x+)+y']);
  assert.deepEqual(errors, []);
  // Under a backtracking engine each of these lines would take longer than the universe's age.
  const text = 'a'.repeat(5000) + '\n' + 'a'.repeat(5000) + '!\n' + 'x'.repeat(5000) + '\n';
  const r = maskSecrets(text, patterns);
  assert.equal(r.text, '[MASKED:custom]\n' + 'a'.repeat(5000) + '!\n' + 'x'.repeat(5000) + '\n');
});

test('a docker image digest is not a URL password (docker://alpine:3.19@sha256:...)', () => {
  const line = 'copying docker://alpine:3.19@sha256:c5b1261d6d3e43071626931fc004f70149baeba2c8ec672bd4f27761f8e1ad6b\n';
  assert.deepEqual(maskSecrets(line), { text: line, count: 0 });
  assert.equal(maskSecrets('redis://default:s3cretpw@cache:6379\n').text, 'redis://default:[MASKED:url-password]@cache:6379\n');
});

test('secrets known only by their name are masked in export, JSON, YAML, docker -e, headers, curl -u and connection strings', () => {
  const cases: [string, string][] = [
    ['export DB_PASSWORD=hunter2x', 'export DB_PASSWORD=[MASKED:password]'],
    ['    "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLE1",', '    "SecretAccessKey": "[MASKED:aws-secret-access-key]",'],
    ['  client_secret: Zq8fAKEvalue0123456789', '  client_secret: [MASKED:secret]'],
    ['docker run -e API_TOKEN=FAKEabc123def456 img', 'docker run -e API_TOKEN=[MASKED:secret] img'],
    ['curl -H "X-Api-Key: FAKE0123456789abcdef" https://x', 'curl -H "X-Api-Key: [MASKED:secret]" https://x'],
    ['curl -u deploy:Fake-Pass-123 https://x', 'curl -u deploy:[MASKED:password] https://x'],
    ['Server=db;User Id=app;Password=Fake!pass9;', 'Server=db;User Id=app;Password=[MASKED:password];'],
    ['> Authorization: token FAKE0123456789abcdef', '> Authorization: token [MASKED:authorization]'],
    ['var adafruitToken string = "nr4kfake8o4wq0lt5r3vudcbory27g"', 'var adafruitToken string = "[MASKED:secret]"'],
    ['System.setProperty("ALGOLIA_TOKEN", "3ld47q5fake6plz8fdzjges8v4pdl5wk6")', 'System.setProperty("ALGOLIA_TOKEN", "[MASKED:secret]")'],
  ];
  for (const [input, expected] of cases) assert.equal(maskSecrets(input + '\n').text, expected + '\n', input);
});

test('source code that names tokens and passwords is left alone (agentContext_read and grep show code; compilers print it)', () => {
  // Lines as they are in typescript.js, playwright and @types/vscode: each was masked before.
  const code = [
    'node.questionToken = questionToken;',
    'tokenValue = saveTokenValue;',
    'pos = tokenStart = fullStartPos;',
    'const EXACT_TOKEN_CHARS = 1_000_000;',
    'provideTextDocumentContent(uri: Uri, token: CancellationToken): ProviderResult<string>;',
    '    token: CancellationToken',
    'resultingToken = startedWithBacktick ? 15 : 18;',
    'let token = skipCurrentToken ? nextToken() : scanner.getToken();',
    'const { contextToken: contextToken2, previousToken: previousToken2 } = getRelevantTokens(position, sourceFile);',
    'needsSecondPassForFixAll: !isCompleteFix',
    'const extendsToken = heritageClauses[0].getFirstToken();',
    'const readonlyToken = type2.declaration.readonlyToken ? a : b;',
    'const browserToken = browser.launchOptions?.channel ?? browser?.browserName;',
    'return { symbol, token: constToken };',
    '{ password: userPassword }',
  ].join('\n') + '\n';
  assert.deepEqual(maskSecrets(code), { text: code, count: 0 });
  // The same names with values that are secrets, in config files and literals, are still masked.
  const cases: [string, string][] = [
    ['password = hunter2x', 'password = [MASKED:password]'],
    ['password = hunter2x;', 'password = [MASKED:password];'],
    ['password: hunter2', 'password: [MASKED:password]'],
    ['Password=mySecretPass;', 'Password=[MASKED:password];'],
    ['API_TOKEN = abcDEF123456ghiJKL;', 'API_TOKEN = [MASKED:secret];'],
    ['const token = "abcDEF123456ghi";', 'const token = "[MASKED:secret]";'],
    ['password=!Fk9pq2Lm7x', 'password=[MASKED:password]'],
  ];
  for (const [input, expected] of cases) assert.equal(maskSecrets(input + '\n').text, expected + '\n', input);
});

test('streaming: a kubectl Secret data block is masked even when chunks split it anywhere', () => {
  const text = 'apiVersion: v1\ndata:\n  password: RkFLRXBhc3N3b3Jk\n  username: YWRtaW4=\nkind: Secret\nmetadata:\n  name: db\n';
  const expected = 'apiVersion: v1\ndata:\n  password: [MASKED:kubernetes-secret]\n  username: [MASKED:kubernetes-secret]\nkind: Secret\nmetadata:\n  name: db\n';
  assert.equal(maskSecrets(text).text, expected);
  for (let i = 1; i < text.length; i++) {
    const m = new StreamingMasker();
    assert.equal(m.push(text.slice(0, i)) + m.push(text.slice(i)) + m.flush(), expected, `split at ${i}`);
  }
  // a ConfigMap's plain words stay
  const cm = 'data:\n  LOG_LEVEL: debug\n  MODE: production\nkind: ConfigMap\n';
  assert.equal(maskSecrets(cm).text, cm);
});
