import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import nx from '@nx/eslint-plugin';
import globals from 'globals';

/** Who may import whom. Apps and domain libraries see only their own scope and the shared libraries; e2e only the shared ones. */
const depConstraints = [
  { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
  { sourceTag: 'scope:performance', onlyDependOnLibsWithTags: ['scope:performance', 'scope:shared'] },
  { sourceTag: 'scope:oversight', onlyDependOnLibsWithTags: ['scope:oversight', 'scope:shared'] },
  { sourceTag: 'scope:platform-runs', onlyDependOnLibsWithTags: ['scope:platform-runs', 'scope:shared'] },
  { sourceTag: 'scope:webhook-dispatcher', onlyDependOnLibsWithTags: ['scope:webhook-dispatcher', 'scope:shared'] },
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:domain', 'type:lib', 'type:test'] },
  { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:lib', 'type:test'] },
  { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib', 'type:test'] },
  { sourceTag: 'type:test', onlyDependOnLibsWithTags: ['type:lib'] },
  // The end-to-end suites (e2e/) are black-box: they reach the apps over HTTP and Kafka only, never an app's
  // or a domain library's code, so they hold whatever the services do inside.
  { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:lib', 'type:test'] },
  // tools/ (the stacks, generators, the demo) start and document the apps from outside: shared and test libraries only.
  { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'type:test'] },
];

const E2E_READS_NO_TABLE =
  'e2e suites are black-box: check what a service stores beside it (apps/<app>/src) or through an API, never in its tables.';
const E2E_READS_NO_REDIS_KEY =
  'e2e suites are black-box: check what the gateway keeps in Redis beside it (apps/gateway, its domain libraries) or through an API.';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/generated/**', '.cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // No line over 140 columns: Prettier keeps code within them but never splits a string, a template literal, a
  // regular expression or a comment, so this holds those too (docs/decisions.md "Formatting and names"). The files
  // eslint does not read (JSON, the console's HTML and CSS) are held by tools/stack/long-lines.ts.
  { rules: { 'max-len': ['error', { code: 140 }] } },
  // The tools' bootstrap: plain CommonJS on Node, run before anything is installed or compiled.
  {
    files: ['tools/bootstrap.js'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The console runs in the browser as plain scripts (docs/console.md).
  { files: ['apps/gateway/console/**/*.js'], languageOptions: { sourceType: 'script', globals: globals.browser } },
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    // Nest injects by the constructor's parameter types: those imports are values, not types.
    languageOptions: { parserOptions: { emitDecoratorMetadata: true, experimentalDecorators: true } },
    rules: {
      // libs/testing is built on shared libraries (messaging, db) whose own integration suites use it: those
      // spec files close the only cycles in the project graph, so they are not counted as cycles.
      '@nx/enforce-module-boundaries': [
        'error',
        { allow: [], enforceBuildableLibDependency: false, depConstraints, ignoredCircularDependencies: [['testing', 'tag:type:lib']] },
      ],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@workline/*/*'], message: 'Import libraries by their package root only.' }] },
      ],
    },
  },
  {
    files: ['apps/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['libs/messaging/**', '**/*.spec.ts', '**/*.integration-spec.ts', '**/*.faults-spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'kafkajs', message: 'Use @workline/messaging: apps never touch the Kafka client directly.' }],
          patterns: [{ group: ['@workline/*/*'], message: 'Import libraries by their package root only.' }],
        },
      ],
    },
  },
  // The end-to-end suites see what a client sees: what a service keeps in its tables, or the gateway in Redis, is
  // checked beside it (apps/<app>/src, its domain library) or through an API. The fault suites read the tables on
  // purpose (e2e/faults/fault-audit.ts); the embedded-PostgreSQL check is about the database itself.
  {
    files: ['e2e/**/*.ts'],
    ignores: ['e2e/faults/**', 'e2e/operations/embedded-postgres.integration-spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@workline/db', message: E2E_READS_NO_TABLE },
            { name: 'pg', message: E2E_READS_NO_TABLE },
            { name: 'ioredis', message: E2E_READS_NO_REDIS_KEY },
            { name: '@workline/testing', importNames: ['dbQuery'], message: E2E_READS_NO_TABLE },
          ],
          patterns: [{ group: ['@workline/*/*'], message: 'Import libraries by their package root only.' }],
        },
      ],
    },
  },
);
