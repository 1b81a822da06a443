import { describe, expect, it } from '@jest/globals';
import { type ContractRunner, type ContractTestFn, suiteHooks } from './contract-runner.js';

/** A runner that only records what was registered with it. */
function recordingRunner(hookNames: 'jest' | 'node') {
  const registered: string[] = [];
  const bodies: ContractTestFn[] = [];
  const hook = (kind: string) => (fn: ContractTestFn) => {
    registered.push(kind);
    bodies.push(fn);
  };
  const runner: ContractRunner = {
    describe: (name, fn) => {
      registered.push(`describe ${name}`);
      fn();
    },
    it: (name, fn) => {
      registered.push(`it ${name}`);
      bodies.push(fn);
    },
    ...(hookNames === 'jest'
      ? { beforeAll: hook('beforeAll'), afterAll: hook('afterAll') }
      : { before: hook('before'), after: hook('after') }),
  };
  return { runner, registered, bodies };
}

describe('suiteHooks', () => {
  it.each(['jest', 'node'] as const)('registers with the %s names of the once-per-suite hooks', (names) => {
    const { runner, registered } = recordingRunner(names);
    const hooks = suiteHooks({ runner });

    hooks.describe('suite', () => {
      hooks.beforeAll(() => {});
      hooks.it('a test', () => {});
      hooks.afterAll(() => {});
    });

    const [before, after] = names === 'jest' ? ['beforeAll', 'afterAll'] : ['before', 'after'];
    expect(registered).toEqual(['describe suite', before, 'it a test', after]);
  });

  it("expands each as Jest does: rows spread into arguments, every %s the next argument's text", async () => {
    const { runner, registered, bodies } = recordingRunner('jest');
    const hooks = suiteHooks({ runner });
    const seen: unknown[][] = [];

    hooks.it.each([
      ['approve', 1],
      ['reject', 2],
    ])('%s → %s', (method, n) => void seen.push([method, n]));
    hooks.it.each([false, true])('force: %s', (force) => void seen.push([force]));
    hooks.describe.each([['outer', 'x']])('%s', (label, x) => hooks.it(`${label}/${x}`, () => {}));
    for (const body of bodies) await body();

    expect(registered).toEqual([
      'it approve → 1',
      'it reject → 2',
      'it force: false',
      'it force: true',
      'describe outer',
      'it outer/x',
    ]);
    expect(seen).toEqual([['approve', 1], ['reject', 2], [false], [true]]);
  });

  it('uses the globals of the runner it runs under when none is passed (here: Jest)', () => {
    expect(() => suiteHooks()).not.toThrow();
  });

  it('refuses a runner without once-per-suite hooks', () => {
    expect(() => suiteHooks({ runner: { describe: () => {}, it: () => {} } })).toThrow(
      /beforeAll\/afterAll.*before\/after/,
    );
  });
});
