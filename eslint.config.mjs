import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Layers (type:*) and domains (scope:*). Apps use libs, never apps; libs never use apps or tools;
 * tools compose everything. Domain libs are used only by the apps whose surface serves them: the
 * tracker cannot pull in the catalog or the account lib, shared libs depend on shared libs only.
 */
const SHARED = 'scope:shared';
const RUNTIME = 'scope:runtime';
/**
 * The domains' scope tags, read from the tree (libs/domains/<lib>/project.json) when the config
 * loads: a new domain lib joins them by its own tag, with no line here (decision record 0068).
 */
const DOMAINS = [
  ...new Set(
    readdirSync(join(import.meta.dirname, 'libs/domains'))
      .map((lib) => join(import.meta.dirname, 'libs/domains', lib, 'project.json'))
      .filter((file) => existsSync(file))
      .flatMap((file) => JSON.parse(readFileSync(file, 'utf8')).tags ?? [])
      .filter((tag) => tag.startsWith('scope:') && tag !== SHARED),
  ),
].sort();
const TESTING_ONLY = [{ name: '@cw-tools/testing', message: '@cw-tools/testing is for tests only.' }];
const PACKAGE_ONLY = [
  {
    group: ['@cw/*/**'],
    message: "Import a lib through its package only (its index.ts): another domain's data is read through its exported functions.",
  },
];
/** The libs split out of the conversions lib (decision record 0047): only they open the conversion and feed models. */
const CONVERSIONS_FAMILY = ['conversions', 'events-feed', 'stats', 'reports', 'conversions-operator'];
const FAMILY_MODELS = [
  { name: '@cw/conversions', importNames: ['conversionsModels'], message: 'Conversion rows are read through ConversionsData outside the conversions family.' },
  {
    name: '@cw/events-feed',
    importNames: ['eventsFeedModels'],
    message: "The feed's rows are read through its exported functions outside the conversions family.",
  },
];
const BOUNDARIES = {
  enforceBuildableLibDependency: false,
  allow: [],
  depConstraints: [
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib', 'type:testing'] },
    { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
    { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:lib', 'type:tool'] },
    { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'type:tool', 'type:app', 'type:testing'] },
    { sourceTag: SHARED, onlyDependOnLibsWithTags: [SHARED] },
    // Domains: each reads another's data only through that domain's package (its handle's methods).
    { sourceTag: 'scope:programs', onlyDependOnLibsWithTags: [SHARED] },
    { sourceTag: 'scope:account', onlyDependOnLibsWithTags: [SHARED, 'scope:conversions', 'scope:links', 'scope:money'] },
    // Money out: the ledger (a consumer of the sale events) and payouts over it.
    { sourceTag: 'scope:money', onlyDependOnLibsWithTags: [SHARED, 'scope:conversions', 'scope:programs', 'scope:links', 'scope:money'] },
    { sourceTag: 'scope:links', onlyDependOnLibsWithTags: [SHARED, 'scope:programs'] },
    // Missing-sale inquiries: the publisher's clicks (evidence), programs, and the sales core that credits an accepted one.
    { sourceTag: 'scope:inquiries', onlyDependOnLibsWithTags: [SHARED, 'scope:conversions', 'scope:links', 'scope:programs'] },
    { sourceTag: 'scope:catalog', onlyDependOnLibsWithTags: [SHARED, 'scope:links', 'scope:programs'] },
    // Personal coupon codes: the programs' rules; the sales core asks it which publisher holds a code.
    { sourceTag: 'scope:codes', onlyDependOnLibsWithTags: [SHARED, 'scope:programs'] },
    // The conversions family (decision record 0047): sales core <- events feed <- stats <- reports, and the operator's acts over core and feed.
    { sourceTag: 'scope:conversions', onlyDependOnLibsWithTags: [SHARED, 'scope:links', 'scope:programs', 'scope:conversions', 'scope:codes'] },
    { sourceTag: 'conversions:sales', notDependOnLibsWithTags: ['conversions:feed', 'conversions:stats', 'conversions:reports', 'conversions:operator'] },
    { sourceTag: 'conversions:feed', notDependOnLibsWithTags: ['conversions:stats', 'conversions:reports', 'conversions:operator'] },
    { sourceTag: 'conversions:stats', notDependOnLibsWithTags: ['conversions:reports', 'conversions:operator'] },
    { sourceTag: 'conversions:reports', notDependOnLibsWithTags: ['conversions:operator'] },
    { sourceTag: 'conversions:operator', notDependOnLibsWithTags: ['conversions:stats', 'conversions:reports'] },
    { sourceTag: 'scope:offers', onlyDependOnLibsWithTags: [SHARED, 'scope:links', 'scope:programs'] },
    { sourceTag: 'scope:postbacks', onlyDependOnLibsWithTags: [SHARED, 'scope:conversions', 'scope:programs', 'scope:postbacks', 'scope:tools'] },
    { sourceTag: 'scope:trending', onlyDependOnLibsWithTags: [SHARED, 'scope:links', 'scope:programs'] },
    { sourceTag: 'scope:monetize', onlyDependOnLibsWithTags: [SHARED, 'scope:programs', 'scope:links', 'scope:conversions', 'scope:people'] },
    // People: persons, their memberships and sessions; accounts through auth, the log through audit (shared).
    { sourceTag: 'scope:people', onlyDependOnLibsWithTags: [SHARED] },
    // Notification mail: people's choices and the mail job, rendering what money, stats and links say.
    { sourceTag: 'scope:notifications', onlyDependOnLibsWithTags: [SHARED, 'scope:people', 'scope:money', 'scope:conversions', 'scope:links', 'scope:programs'] },
    { sourceTag: 'scope:feeds', onlyDependOnLibsWithTags: [SHARED, 'scope:catalog', 'scope:programs', 'scope:links'] },
    // The composition root: every domain's data on one connection (apps and tools open it; no domain lib does).
    { sourceTag: RUNTIME, onlyDependOnLibsWithTags: [SHARED, ...DOMAINS] },
    // Apps: the domains their surface serves, and the composition root.
    { sourceTag: 'scope:tracking', onlyDependOnLibsWithTags: [SHARED, 'scope:links', 'scope:programs', 'scope:conversions', 'scope:inquiries', 'scope:codes', 'scope:tools', RUNTIME] },
    {
      sourceTag: 'scope:worker',
      // scope:links and scope:programs: the link health pass (jobs/link-health.job.ts).
      onlyDependOnLibsWithTags: [
        SHARED,
        'scope:conversions',
        'scope:postbacks',
        'scope:feeds',
        'scope:catalog',
        'scope:links',
        'scope:programs',
        'scope:money',
        'scope:inquiries',
        'scope:notifications',
        'scope:tools',
        RUNTIME,
      ],
    },
    {
      sourceTag: 'scope:publisher',
      onlyDependOnLibsWithTags: [
        SHARED,
        'scope:catalog',
        'scope:programs',
        'scope:links',
        'scope:account',
        'scope:conversions',
        'scope:postbacks',
        'scope:offers',
        'scope:trending',
        'scope:money',
        'scope:inquiries',
        'scope:codes',
        'scope:tools',
        RUNTIME,
      ],
    },
    {
      sourceTag: 'scope:mcp',
      onlyDependOnLibsWithTags: [
        SHARED,
        'scope:catalog',
        'scope:programs',
        'scope:links',
        'scope:account',
        'scope:conversions',
        'scope:postbacks',
        'scope:money',
        'scope:inquiries',
        'scope:codes',
        'scope:tools',
        RUNTIME,
      ],
    },
    { sourceTag: 'scope:monetize-api', onlyDependOnLibsWithTags: [SHARED, 'scope:monetize', 'scope:tools', RUNTIME] },
    {
      sourceTag: 'scope:portal',
      onlyDependOnLibsWithTags: [
        SHARED,
        'scope:people',
        'scope:account',
        'scope:postbacks',
        'scope:monetize',
        'scope:conversions',
        'scope:catalog',
        'scope:programs',
        'scope:links',
        'scope:money',
        'scope:inquiries',
        'scope:notifications',
        'scope:codes',
        'scope:tools',
        RUNTIME,
      ],
    },
    { sourceTag: 'scope:feed-service', onlyDependOnLibsWithTags: [SHARED, 'scope:feeds', 'scope:catalog', 'scope:tools', RUNTIME] },
    {
      sourceTag: 'scope:reporting',
      onlyDependOnLibsWithTags: [SHARED, 'scope:catalog', 'scope:programs', 'scope:links', 'scope:account', 'scope:conversions', 'scope:money', 'scope:tools', RUNTIME],
    },
  ],
};
// A domain no line above names (a new one) may use shared libs only, until a line says which domains it reads.
for (const tag of DOMAINS) {
  if (!BOUNDARIES.depConstraints.some((c) => c.sourceTag === tag)) BOUNDARIES.depConstraints.push({ sourceTag: tag, onlyDependOnLibsWithTags: [SHARED] });
}

export default [
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.local/**',
      '.nx/**',
      '.scratch/**',
      'coverage/**',
      // The portal's form validators, generated at build time from the API's schemas (ajv standalone code).
      'apps/portal/web/src/generated/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { plugins: { '@nx': nx } },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
      '@nx/enforce-module-boundaries': ['error', BOUNDARIES],
    },
  },
  {
    // The dev stack and the benchmarks compose the apps into one process: the only places an
    // app is imported (through its package name). The same constraints hold there too.
    files: ['tools/dev-stack/**/*.ts', 'bench/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': ['error', { ...BOUNDARIES, allow: ['@cw/app-*'] }] },
  },
  {
    // A lib's own tests may use the test helpers (which compose tools); its code may not.
    files: ['libs/*/*/src/**/*.test.ts', 'libs/*/*/test/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          ...BOUNDARIES,
          depConstraints: BOUNDARIES.depConstraints.map((c) =>
            c.sourceTag === 'type:lib'
              ? { ...c, onlyDependOnLibsWithTags: ['type:lib', 'type:testing'] }
              : c.sourceTag.startsWith('scope:')
                ? { ...c, onlyDependOnLibsWithTags: [...c.onlyDependOnLibsWithTags, 'scope:tools'] }
                : c,
          ),
        },
      ],
    },
  },
  {
    // The testing lib is for tests only. A lib is imported through its package (its index.ts) only:
    // a domain's data module (its schemas and models) is not reachable from another project.
    files: ['apps/*/src/**/*.ts', 'libs/*/*/src/**/*.ts'],
    ignores: ['**/*.test.ts', 'tools/testing/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [...TESTING_ONLY, ...FAMILY_MODELS], patterns: PACKAGE_ONLY }] },
  },
  {
    // The conversions family (decision record 0047) shares the conversion rows and the feed's rows among its libs.
    files: CONVERSIONS_FAMILY.map((lib) => `libs/domains/${lib}/src/**/*.ts`),
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: TESTING_ONLY, patterns: PACKAGE_ONLY }] },
  },
  {
    // Type-aware: a promise nobody awaits or handles (a lost error, a write that may not happen
    // before the answer) and a promise where a callback's return is ignored are errors.
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'tools/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // The portal's front end (browser code, TSX, built by Vite): the same rules as the TypeScript
    // elsewhere, type-aware through its own tsconfig (DOM lib, react-jsx).
    files: ['apps/portal/web/**/*.ts', 'apps/portal/web/**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  prettier,
];
