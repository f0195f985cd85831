export default [
  {
    files: ['src/**/*.js'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { console: 'readonly', process: 'readonly' } },
    rules: {
      'no-unused-vars': 'warn',
      'no-undef': 'error',
      eqeqeq: 'error',
      'no-console': 'warn',
      'prefer-const': 'warn',
      'no-unreachable': 'error',
      'no-dupe-keys': 'error',
    },
  },
];
