import { describe, it, expect as jestExpect } from '@jest/globals';
import { AssertionError } from 'node:assert';
import { expect } from './expect.js';

class Row {
  constructor(
    readonly id: string,
    readonly at: Date,
  ) {}
}

const fails = (assertion: () => unknown) => jestExpect(assertion).toThrow(AssertionError);

describe('the contract suites’ expect (Jest semantics on node:assert)', () => {
  it('toEqual ignores undefined properties and prototypes, compares dates by instant and sets by members', () => {
    expect(new Row('r1', new Date(5))).toEqual({ id: 'r1', at: new Date(5) });
    expect({ id: 'r1', extra: undefined }).toEqual({ id: 'r1' });
    expect(new Set(['a', 'b'])).toEqual(new Set(['b', 'a']));
    expect([{ at: new Date(1) }]).toEqual([{ at: new Date(1) }]);
  });

  it('toEqual fails on a different value, a missing or extra property, null for undefined, another date or set', () => {
    fails(() => expect({ id: 'r1' }).toEqual({ id: 'r2' }));
    fails(() => expect({ id: 'r1', more: 1 }).toEqual({ id: 'r1' }));
    fails(() => expect({ id: 'r1' }).toEqual({ id: 'r1', more: 1 }));
    fails(() => expect({ id: null }).toEqual({}));
    fails(() => expect(new Date(1)).toEqual(new Date(2)));
    fails(() => expect(new Set([1])).toEqual(new Set([1, 2])));
    fails(() => expect([1, 2]).toEqual([2, 1]));
    fails(() => expect(1).toEqual('1'));
  });

  it('toMatchObject compares the named properties only, recursively, with arrays of equal length', () => {
    expect({ a: 1, b: { c: 2, d: 3 }, list: [{ x: 1, y: 2 }] }).toMatchObject({ b: { c: 2 }, list: [{ x: 1 }] });
    fails(() => expect({ a: 1 }).toMatchObject({ a: 2 }));
    fails(() => expect({ a: 1 }).toMatchObject({ b: 1 }));
    fails(() => expect({ list: [1, 2] }).toMatchObject({ list: [1] }));
    fails(() => expect(null).toMatchObject({ a: 1 }));
  });

  it('toBe, toBeNull, toHaveLength, toContain and their negations', () => {
    expect(1).toBe(1);
    expect(null).toBeNull();
    expect([1, 2]).toHaveLength(2);
    expect('abc').toContain('b');
    expect('abc').not.toContain('d');
    expect(1).not.toBe(2);
    fails(() => expect({}).toBe({}));
    fails(() => expect(undefined).toBeNull());
    fails(() => expect([1]).toHaveLength(2));
    fails(() => expect('abc').not.toContain('a'));
    fails(() => expect([1]).toContain(2));
    fails(() => expect(1).not.toBe(1));
  });

  it('resolves awaits the value first', async () => {
    await expect(Promise.resolve({ a: 1, b: 2 })).resolves.toMatchObject({ a: 1 });
    await jestExpect(expect(Promise.resolve({ a: 1 })).resolves.toEqual({ a: 2 })).rejects.toThrow(AssertionError);
  });
});
