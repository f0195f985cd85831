import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test/fixtures/**', '.vscode-test/**', 'test-results/**', 'bench/corpus/**', 'bench/retrieval/recipes/**', 'bench/work/**'] },
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
  {
    // "Is this path inside that folder?" has one answer (core/workspace/relativePaths.ts): a hand-made
    // prefix test gets `..x` (a name starting with two dots) or a platform's case and separators wrong.
    files: ['src/**/*.ts'],
    ignores: ['src/core/workspace/relativePaths.ts'],
    rules: {
      'no-restricted-syntax': ['error',
        {
          selector: "CallExpression[callee.property.name='startsWith'][arguments.0.type='Literal'][arguments.0.value=/^\\.\\.([\\/\\\\]|$)/]",
          message: 'A relative path leaving its folder is leavesFolder(rel) (core/workspace/relativePaths.ts); startsWith(\'..\') also takes a name like "..x" for outside.',
        },
        {
          selector: "CallExpression[callee.property.name='startsWith'] > BinaryExpression.arguments[operator='+'][right.type='MemberExpression'][right.property.name='sep']",
          message: 'Use isInside / relativeInside (core/workspace/relativePaths.ts): one rule for separators and case on every platform.',
        },
        {
          selector: "CallExpression[callee.property.name='startsWith'] > BinaryExpression.arguments[operator='+'][right.type='Literal'][right.value='..']",
          message: 'Use leavesFolder(rel) (core/workspace/relativePaths.ts).',
        },
        {
          // Paths into .agent/ come from one table (core/workspace/layout.ts): agentDirOf, agentPath, agentRel, AGENT_DIR.
          selector: "CallExpression[callee.property.name='join'] > Literal.arguments[value=/^\\.agent([\\/\\\\]|$)/]",
          message: 'Build paths into .agent/ with agentDirOf / agentPath / AGENT_DIR (core/workspace/layout.ts), not a hand-written \'.agent\'.',
        },
      ],
    },
  },
);
