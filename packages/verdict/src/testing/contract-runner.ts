/** A test body: Jest, Vitest, Mocha and `node:test` all accept an async function of no arguments. */
export type ContractTestFn = () => Promise<void> | void;

/**
 * The test functions a contract suite registers its tests with: `describe` and `it`, with once-per-suite
 * hooks named either `beforeAll`/`afterAll` (Jest, Vitest) or `before`/`after` (`node:test`, Mocha). The
 * `node:test` module and Jest's globals both fit as they are.
 *
 * @example
 * import * as nodeTest from 'node:test';
 * describeRateLimitStoreContract('redis', setup, { runner: nodeTest });
 *
 * // Jest with injectGlobals: false — describe, it, beforeAll and afterAll imported from Jest's globals module:
 * describeRateLimitStoreContract('redis', setup, { runner: { describe, it, beforeAll, afterAll } });
 */
export interface ContractRunner {
  describe(name: string, fn: () => void): unknown;
  it(name: string, fn: ContractTestFn): unknown;
  beforeAll?(fn: ContractTestFn): unknown;
  afterAll?(fn: ContractTestFn): unknown;
  before?(fn: ContractTestFn): unknown;
  after?(fn: ContractTestFn): unknown;
}

/**
 * Options of every `describe…Contract` suite.
 *
 * @example
 * import test from 'node:test';
 * describeTrajectoryStoreContract('memory', async () => ({ store: new InMemoryTrajectoryStore(), close: async () => {} }), { runner: test });
 */
export interface ContractSuiteOptions {
  /**
   * The runner to register the tests with. Default: the runner's globals when there are any (Jest, Vitest
   * with `globals: true`, Mocha), otherwise `node:test`.
   */
  readonly runner?: ContractRunner;
}

/**
 * Registers one test (or suite) per row, as Jest's `each` does: a row that is an array is spread into the
 * arguments, and each `%s` of the name is replaced by the next argument.
 */
export interface Each<TBody> {
  <const TRow extends readonly unknown[]>(
    rows: readonly TRow[],
  ): (name: string, fn: (...row: [...TRow]) => TBody) => void;
  <const TRow>(rows: readonly TRow[]): (name: string, fn: (row: TRow) => TBody) => void;
}

/** The functions a suite uses, whatever the runner calls them, with Jest's `each` on any runner. */
export interface SuiteHooks {
  readonly describe: ((name: string, fn: () => void) => void) & { readonly each: Each<void> };
  readonly it: ((name: string, fn: ContractTestFn) => void) & { readonly each: Each<Promise<void> | void> };
  beforeAll(fn: ContractTestFn): void;
  afterAll(fn: ContractTestFn): void;
  /**
   * Registers a test of an optional part of a store's API. When it runs, `missing()` answers what the store lacks
   * (or `undefined`: the test runs). A store without it is reported skipped where a running test can skip: the
   * test context's `skip` (`node:test`, Vitest) or `this.skip` (Mocha). Jest has neither: there the test passes
   * without checking anything. `missing` may throw, failing the test, e.g. for half an API.
   */
  optionalIt(name: string, missing: () => string | undefined, fn: ContractTestFn): void;
}

/**
 * The hooks of `options.runner`, or of the runner this file is running under. Under Jest without
 * injected globals (`injectGlobals: false`) there is nothing to detect: the runner must be passed.
 *
 * @throws Error when no runner is given or found, or the given one lacks a once-per-suite hook.
 */
export function suiteHooks(options: ContractSuiteOptions = {}): SuiteHooks {
  const runner = options.runner ?? detectRunner();
  const beforeAll = runner.beforeAll ?? runner.before;
  const afterAll = runner.afterAll ?? runner.after;
  if (beforeAll === undefined || afterAll === undefined) {
    throw new Error('The contract runner needs beforeAll/afterAll (Jest, Vitest) or before/after (node:test, Mocha).');
  }
  const describe = (name: string, fn: () => void) => void runner.describe(name, fn);
  const it = (name: string, fn: ContractTestFn) => void runner.it(name, fn);
  return {
    describe: Object.assign(describe, { each: eachOf(describe) }),
    it: Object.assign(it, { each: eachOf(it) }),
    beforeAll: (fn) => void beforeAll.call(runner, fn),
    afterAll: (fn) => void afterAll.call(runner, fn),
    // A rest parameter keeps the body's length 0: Jest and Mocha would take a parameter for a done callback.
    optionalIt: (name, missing, fn) =>
      it(name, function (this: unknown, ...args: unknown[]) {
        const reason = missing();
        if (reason === undefined) return fn();
        const context = [args[0], this].find(canSkip);
        // node:test marks the test skipped and returns; Vitest and Mocha throw their skip signal.
        context?.skip(reason);
      }),
  };
}

function canSkip(context: unknown): context is { skip(note?: string): unknown } {
  return typeof (context as { skip?: unknown } | null | undefined)?.skip === 'function';
}

function eachOf<TBody>(register: (name: string, fn: () => TBody) => void): Each<TBody> {
  return ((rows: readonly unknown[]) => (name: string, fn: (...row: unknown[]) => TBody) => {
    for (const row of rows) {
      const args = Array.isArray(row) ? row : [row];
      let next = 0;
      register(
        name.replace(/%s/g, () => String(args[next++])),
        () => fn(...args),
      );
    }
  }) as Each<TBody>;
}

function detectRunner(): ContractRunner {
  const globals = globalThis as Partial<ContractRunner>;
  if (typeof globals.describe === 'function' && typeof globals.it === 'function') return globals as ContractRunner;
  // A Jest worker without globals; a `node --test` process that Jest spawned inherits the worker id, not the globals.
  if (process.env['JEST_WORKER_ID'] !== undefined && process.env['NODE_TEST_CONTEXT'] === undefined) {
    throw new Error(
      'Jest runs without its globals (injectGlobals: false): pass the runner, e.g. ' +
        "{ runner: { describe, it, beforeAll, afterAll } }, imported from Jest's globals module (@jest/globals).",
    );
  }
  return process.getBuiltinModule('node:test');
}
