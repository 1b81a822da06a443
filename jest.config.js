/** Jest 30 in native ESM mode; sources are transpiled by ts-jest (types are checked by `npm run typecheck`). */
const workspaceMap = {
  '^@verdict/nestjs$': '<rootDir>/packages/verdict/src/index.ts',
  '^@verdict/nestjs/(.*)$': '<rootDir>/packages/verdict/src/$1/index.ts',
  '^@verdict/evaluation$': '<rootDir>/packages/evaluation/src/index.ts',
  '^@verdict/evaluation/live$': '<rootDir>/packages/evaluation/src/live/index.ts',
  '^@verdict/storefront$': '<rootDir>/libs/storefront/src/index.ts',
  '^@verdict/testing-kit$': '<rootDir>/libs/testing/src/index.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
};

export default {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: workspaceMap,
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.json' }],
  },
  testEnvironment: 'node',
  testMatch: [
    '<rootDir>/packages/*/src/**/*.spec.ts',
    '<rootDir>/libs/*/src/**/*.spec.ts',
    '<rootDir>/test/**/*.spec.ts',
  ],
  setupFiles: ['reflect-metadata'],
  testTimeout: 60000,
  // Two workers on this two-core machine, each restarted once a test file leaves its heap above 400 MB: a
  // long-lived process accumulates every file's module graph (ESM modules are never unloaded), and each
  // later file's garbage collections then walk all of it. Measured on the provenance, quarantine, approvals
  // and Agents suites: a third less time than at 1.5 GB (restarting after every file costs a little more).
  maxWorkers: 2,
  testSequencer: '<rootDir>/jest.sequencer.js',
  workerIdleMemoryLimit: '400MB',
};
