import tseslint from 'typescript-eslint';

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
    // The vocabulary (vocabulary/, decisions/, evidence/) sits below the gates: only integrations above the
    // pipeline (the service, LangChain tools, the testing kit) may import it.
    files: ['packages/verdict/src/**/*.ts'],
    ignores: [
      'packages/verdict/src/pipeline/**',
      'packages/verdict/src/langchain/**',
      'packages/verdict/src/testing/**',
      'packages/verdict/src/*.ts',
      // The review lane's worker runs the pipeline for a delivered job, as the service does for a caller.
      'packages/verdict/src/queue/deferred-execution.worker.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/pipeline/*'], message: 'Gates and stores sit below the pipeline.' }] },
      ],
    },
  },
);
