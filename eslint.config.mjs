import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const promClientOnlyInExporters = { name: 'prom-client', message: 'Only src/exporters/ may import prom-client.' };
// The simulator is a development tool (tests, bench, demo); the production build and image leave it out.
const noSimulator = {
  group: ['**/simulator', '**/simulator/**'],
  message: 'src/ is the product and must not import the simulator (simulator/).',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { paths: [promClientOnlyInExporters] }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [promClientOnlyInExporters], patterns: [noSimulator] }] },
  },
  {
    files: ['src/exporters/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noSimulator] }] },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'simulator/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
