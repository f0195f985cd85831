import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test/fixtures/**', '.vscode-test/**', 'test-results/**', 'bench/corpus/**', 'bench/work/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-console': 'off',
    },
  },
  {
    // The core must stay editor-free: the unit tests, the MCP server and the benchmarks use it.
    files: ['src/core/**/*.ts', 'src/mcp/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'src/core and src/mcp must not import vscode at runtime (use `import type`).', allowTypeImports: true }],
      }],
      'no-console': 'error',
    },
  },
  {
    // Extension code logs through the LogOutputChannel, never console.
    files: ['src/**/*.ts'],
    ignores: ['src/mcp/**'],
    rules: { 'no-console': 'error' },
  },
);
