import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { countTokens, formatTokens } from '../../../src/core/output/tokens';

test('counts with a real tokenizer, not characters / 4', () => {
  const en = countTokens('The quick brown fox jumps over the lazy dog.');
  assert.equal(en.approximate, false);
  assert.ok(en.tokens >= 9 && en.tokens <= 12, `english: ${en.tokens}`);
  // CJK text has far more tokens per character than chars/4 would say.
  const ja = 'ビルドに失敗しました。依存関係を確認してください。'.repeat(10);
  const jt = countTokens(ja);
  assert.ok(jt.tokens > ja.length / 4, `japanese: ${jt.tokens} for ${ja.length} chars`);
});

test('large texts are estimated and marked', () => {
  const big = 'error: something failed at line 42\n'.repeat(40_000);
  const c = countTokens(big);
  assert.equal(c.approximate, true);
  assert.match(formatTokens(c), /^≈/);
  const exact = countTokens(big.slice(0, 36 * 1000)).tokens * 40;
  assert.ok(Math.abs(c.tokens - exact) / exact < 0.1, `${c.tokens} vs ${exact}`);
});
