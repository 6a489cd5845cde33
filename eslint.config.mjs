import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';

export default [
  { ignores: ['**/node_modules/**', '**/dist/**', '.local/**', '.nx/**', '.scratch/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { plugins: { '@nx': nx } },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            // Apps use libs (and, from tests, the testing lib); never another app.
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib', 'type:testing'] },
            // Libs never import apps.
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib', 'type:testing'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:lib', 'type:tool'] },
            // Tools compose the platform (the dev stack mounts every app).
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'type:tool', 'type:app', 'type:testing'] },
          ],
        },
      ],
    },
  },
  {
    // The dev stack and the benchmarks compose the apps into one process: the only places an
    // app is imported (through its package name). Everything else keeps the rule above.
    files: ['tools/dev-stack/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: ['@cw/app-*'],
          depConstraints: [{ sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'type:tool', 'type:app', 'type:testing'] }, { sourceTag: '*', onlyDependOnLibsWithTags: ['*'] }],
        },
      ],
    },
  },
  {
    // The testing lib is for tests only.
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['**/*.test.ts', 'tools/testing/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: '@cw/testing', message: '@cw/testing is for tests only.' }] }] },
  },
  prettier,
];
