import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const source = 'packages/verdict/src';
/** The files of the module layer: only the module, the service, the integrations and the testing kit import them. */
const MODULE_FILES = [
  `${source}/verdict-module-options.interface.ts`,
  `${source}/verdict.module-definition.ts`,
  `${source}/verdict.module.ts`,
  `${source}/verdict-core.module.ts`,
];
/** The vocabulary at the bottom, and the few type-only files it names (a context, a decision, a challenge). */
const BOTTOM = ['vocabulary', 'fingerprints', 'errors', 'shared'];
const BOTTOM_MAY_NAME = [
  ...BOTTOM.map((folder) => `./${folder}`),
  './decisions',
  './context/action-context.ts',
  './approvals/approval-challenge.ts',
];
/** The mechanisms: each declares its own options slice (ADR 0071) and sits below the pipeline and the module. */
const MECHANISMS = [
  'approvals',
  'audit',
  'authorization',
  'bullmq',
  'capabilities',
  'cli',
  'containment',
  'context',
  'context-release',
  'decisions',
  'events',
  'evidence',
  'execution-claims',
  'forbidden-states',
  'provenance',
  'queue',
  'rate-limits',
  'review',
  'shadow',
  'targets',
  'telemetry',
  'trajectory',
  'typeorm',
  'upgrade',
];
const folders = (names) => names.map((name) => `${source}/${name}`);
const bottomZone = {
  target: folders(BOTTOM),
  from: source,
  except: BOTTOM_MAY_NAME,
  message: 'The vocabulary, fingerprints, errors and shared helpers sit below every mechanism (ADR 0071).',
};
const moduleZone = {
  target: [...folders([...BOTTOM, ...MECHANISMS]), `${source}/langchain`, `${source}/mcp`],
  from: MODULE_FILES,
  message: 'A mechanism receives its own options slice from the core module; it never imports the module (ADR 0071).',
};
const pipelineZone = {
  target: folders([...BOTTOM, ...MECHANISMS]),
  from: `${source}/pipeline`,
  message: 'Gates and stores sit below the pipeline (ADR 0071).',
};
const layers = (...zones) => ['error', { zones }];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The layers, from the vocabulary up to the pipeline and the module (ADR 0071). Specs may import anything.
    files: [`${source}/**/*.ts`],
    ignores: [`${source}/**/*.spec.ts`],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: `${source}/../tsconfig.json` })],
    },
    rules: { 'import-x/no-restricted-paths': layers(bottomZone, moduleZone, pipelineZone) },
  },
  {
    // The review lane's worker runs the pipeline for a delivered job, as the service does for a caller.
    files: [`${source}/queue/deferred-execution.worker.ts`],
    rules: { 'import-x/no-restricted-paths': layers(moduleZone) },
  },
);
