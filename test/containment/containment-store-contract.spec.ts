import { describe, expect, it } from '@jest/globals';
import { type ContainmentStore, InMemoryContainmentStore } from '@verdict/nestjs';
import { type ContractRunner, describeContainmentStoreContract } from '@verdict/nestjs/testing';

/** A custom store that ignores `engagedAt` on release, as a store written before the argument does. */
class IgnoresEngagedAt implements ContainmentStore {
  private readonly inner = new InMemoryContainmentStore();
  engage: ContainmentStore['engage'] = (containment) => this.inner.engage(containment);
  release: ContainmentStore['release'] = (key) => this.inner.release(key);
  active: ContainmentStore['active'] = () => this.inner.active();
}

type Body = () => Promise<void> | void;

/** Runs the contract suite on `store` under a runner of its own: the name of each test that failed. */
async function contractFailures(store: ContainmentStore): Promise<string[]> {
  const tests: { name: string; body: Body }[] = [];
  const before: Body[] = [];
  const after: Body[] = [];
  const runner: ContractRunner = {
    describe: (_name, fn) => fn(),
    it: (name, body) => void tests.push({ name, body }),
    beforeAll: (fn) => void before.push(fn),
    afterAll: (fn) => void after.push(fn),
  };
  describeContainmentStoreContract('under test', async () => ({ store, close: async () => {} }), { runner });
  for (const fn of before) await fn();
  const failed: string[] = [];
  for (const { name, body } of tests) {
    try {
      await body();
    } catch {
      failed.push(name);
    }
  }
  for (const fn of after) await fn();
  expect(tests.length).toBeGreaterThan(0);
  return failed;
}

describe('describeContainmentStoreContract', () => {
  it('attack: fails a store that ignores engagedAt, so a stale release could lift a switch engaged again', async () => {
    expect(await contractFailures(new IgnoresEngagedAt())).toEqual([
      'releases with engagedAt only the engagement read, not one engaged again since',
    ]);
  });

  it('control: passes the in-memory store on every test', async () => {
    expect(await contractFailures(new InMemoryContainmentStore())).toEqual([]);
  });
});
