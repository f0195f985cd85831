import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { maskSecrets } from '../../../src/core/secrets';
import { parseGitleaksConfig, userRulesFor } from '../../../src/core/secrets/gitleaks';

// A config in gitleaks' own format: Go/RE2 syntax ((?i), \z, named groups), keywords,
// secretGroup, entropy, rule and global allowlists, a path-only rule.
const CONFIG = `
title = "acme"
[extend]
useDefault = true

[[rules]]
id = "acme-deploy-key"
description = "ACME deploy key"
regex = '''(?i)\\b(acme_dk_[a-z0-9]{16})(?:[\\x60'"\\s;]|\\\\[nr]|$)'''
keywords = ["acme_dk_"]
[[rules.allowlists]]
regexes = ['''acme_dk_0000000000000000''']

[[rules]]
id = "acme-internal-password"
regex = '''internal_pw\\s*[:=]\\s*(?P<pw>[^\\s'"]{8,64})'''
secretGroup = 1
entropy = 3.0
keywords = ["internal_pw"]
[rules.allowlist]
stopwords = ["example"]

[[rules]]
id = "pkcs12-file"
path = '''(?i)\\.p12$'''

[allowlist]
description = "global"
regexes = ['''^PLACEHOLDER''']
`;

test('a gitleaks config masks with its regexes, keywords, secretGroup, entropy and allowlists', () => {
  const g = parseGitleaksConfig(CONFIG, '/ws/.gitleaks.toml');
  assert.deepEqual(g.errors, []);
  assert.deepEqual(g.skipped, ['pkcs12-file']);
  assert.equal(g.patterns.rules.length, 2);
  const m = (t: string): string => maskSecrets(t + '\n', g.patterns).text.trimEnd();
  assert.equal(m('deploying with ACME_DK_9f8e7d6c5b4a3f2e now'), 'deploying with [MASKED:acme-deploy-key] now');
  assert.equal(m('deploying with acme_dk_0000000000000000 now'), 'deploying with acme_dk_0000000000000000 now'); // rule allowlist
  assert.equal(m('internal_pw = Zx8#qLm2Vb7!'), 'internal_pw = [MASKED:acme-internal-password]'); // only the group
  assert.equal(m('internal_pw = aaaaaaaaaaaa'), 'internal_pw = aaaaaaaaaaaa'); // entropy below 3.0
  assert.equal(m('internal_pw = Example-Pw-42'), 'internal_pw = Example-Pw-42'); // stopword
});

test('invalid rules are reported by id and skipped; the valid ones still apply; bad TOML never throws', () => {
  const bad = `
[[rules]]
id = "lookbehind"
regex = '''(?<=key=)[a-z]+'''
[[rules]]
id = "empty-match"
regex = '''x*'''
[[rules]]
id = "wrong-group"
regex = '''tok_[a-z]{8}'''
secretGroup = 2
[[rules]]
id = "good"
regex = '''tok_[a-z]{8}'''
keywords = ["tok_"]
`;
  const g = parseGitleaksConfig(bad, 'cfg.toml');
  assert.equal(g.errors.length, 3);
  assert.match(g.errors[0], /cfg\.toml rule "lookbehind": regex is not valid RE2/);
  assert.match(g.errors[1], /rule "empty-match": regex matches empty text/);
  assert.match(g.errors[2], /rule "wrong-group": secretGroup 2 but the regex has 0 group/);
  assert.equal(maskSecrets('a tok_abcdefgh b\n', g.patterns).text, 'a [MASKED:good] b\n');
  const broken = parseGitleaksConfig('[[rules]\nid = "x"', 'broken.toml');
  assert.equal(broken.patterns.rules.length, 0);
  assert.match(broken.errors[0], /^broken\.toml:1: not valid TOML/);
});

test('gitleaks default rules (Go regex syntax) compile on the RE2 engine', () => {
  // A few rules in the shape of gitleaks' shipped config, with its idioms: (?i), (?-i:...), \\z, [[:alnum:]].
  const cfg = `
[[rules]]
id = "generic-api-key"
regex = '''(?i)[\\w.-]{0,50}?(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)(?:[ \\t\\w.-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'"\\s=]{0,5}([\\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?:[\\x60'"\\s;]|\\\\[nr]|$)'''
entropy = 3.5
keywords = ["access","api","auth","key","credential","creds","passwd","password","secret","token"]
[[rules]]
id = "openshift-user-token"
regex = '''\\b(sha256~[\\w-]{43})(?:[^\\w-]|\\z)'''
keywords = ["sha256~"]
[[rules]]
id = "airtable-personnal-access-token"
regex = '''\\b(pat[[:alnum:]]{14}\\.[a-f0-9]{64})\\b'''
keywords = ["airtable"]
`;
  const g = parseGitleaksConfig(cfg, 'gitleaks.toml');
  assert.deepEqual(g.errors, []);
  assert.equal(g.patterns.rules.length, 3);
  // a name the built-in context rules do not treat as secret, but gitleaks' generic rule does
  const out = maskSecrets('auth_blob = "Vq3xT9pL2mR8sK4w"\n', g.patterns).text;
  assert.equal(out, 'auth_blob = "[MASKED:generic-api-key]"\n');
});

test('discovery: <root>/.gitleaks.toml, or the configured path; a missing configured file is reported', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-gl-'));
  assert.equal(userRulesFor({ roots: [root] }).rules, undefined);
  fs.writeFileSync(path.join(root, '.gitleaks.toml'), '[[rules]]\nid = "acme"\nregex = \'\'\'acme_[0-9]{6}\'\'\'\n');
  const found = userRulesFor({ roots: [root], secretPatterns: ['corp-[0-9]{4}'] });
  assert.deepEqual(found.errors, []);
  assert.equal(maskSecrets('acme_123456 corp-1234\n', found.rules).text, '[MASKED:acme] [MASKED:custom]\n');
  fs.mkdirSync(path.join(root, 'cfg'));
  fs.writeFileSync(path.join(root, 'cfg/leaks.toml'), '[[rules]]\nid = "other"\nregex = \'\'\'other_[0-9]{6}\'\'\'\n');
  const configured = userRulesFor({ roots: [root], gitleaksConfig: 'cfg/leaks.toml' });
  assert.equal(maskSecrets('acme_123456 other_123456\n', configured.rules).text, 'acme_123456 [MASKED:other]\n');
  const missing = userRulesFor({ roots: [root], gitleaksConfig: 'nope.toml' });
  assert.match(missing.errors[0], /nope\.toml \(agentContext\.secrets\.gitleaksConfig\): file not found/);
  // edits are picked up (cached by mtime and size)
  fs.writeFileSync(path.join(root, '.gitleaks.toml'), '[[rules]]\nid = "acme2"\nregex = \'\'\'acme_[0-9]{7}\'\'\'\n');
  assert.equal(maskSecrets('acme_1234567\n', userRulesFor({ roots: [root] }).rules).text, '[MASKED:acme2]\n');
});
