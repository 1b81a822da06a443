import { describe, expect, it } from '@jest/globals';
import {
  type EvidenceFilter,
  type EvidenceQuery,
  InMemoryEvidenceQuery,
  InMemoryEvidenceRecorder,
  InvalidEvidenceFilterError,
  type ShadowSummaryFilter,
} from '@verdict/nestjs';
import { type ContractRunner, type ContractTestFn, describeEvidenceQueryContract } from '@verdict/nestjs/testing';

/** U+0000, or a surrogate without its pair: text no record holds. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u.source;
const unstorable = (text: unknown) => typeof text === 'string' && new RegExp(UNSTORABLE).test(text);
/** A date outside the years 0001–9999 (UTC), read as no bound, as PostgreSQL and memory answered an `until` past it. */
const bound = (date: Date | undefined) => {
  const year = date?.getUTCFullYear();
  return year !== undefined && (year < 1 || year > 9999) ? undefined : date;
};

/**
 * A third-party adapter written before the API refused these lookups: it answers `[]` for a capability or correlation
 * id no record can hold (as SQLite and MariaDB did) and reads a date outside 0001–9999 as no bound (as PostgreSQL
 * did), where the built-in stores throw `InvalidEvidenceFilterError`. Everything else it answers as memory does.
 */
function lenientQuery(recorder: InMemoryEvidenceRecorder): EvidenceQuery {
  const inner = new InMemoryEvidenceQuery(recorder);
  const bounded = <F extends { since?: Date; until?: Date }>(filter: F): F => ({
    ...filter,
    since: bound(filter.since),
    until: bound(filter.until),
  });
  return {
    list: async (filter: EvidenceFilter = {}) => (unstorable(filter.capability) ? [] : inner.list(bounded(filter))),
    run: async (correlationId: string) => (unstorable(correlationId) ? [] : inner.run(correlationId)),
    shadowSummary: async (filter: ShadowSummaryFilter = {}) =>
      unstorable(filter.capability) ? [] : inner.shadowSummary(bounded(filter)),
  };
}

/** Runs the evidence-query contract on the query `queryOf` makes over a recorder, in order: each test's outcome. */
async function runContract(queryOf: (recorder: InMemoryEvidenceRecorder) => EvidenceQuery) {
  const tests: Array<{ name: string; fn: ContractTestFn }> = [];
  const hooks: { before: ContractTestFn[]; after: ContractTestFn[] } = { before: [], after: [] };
  const runner: ContractRunner = {
    describe: (_name, fn) => void fn(),
    it: (name, fn) => void tests.push({ name, fn }),
    beforeAll: (fn) => void hooks.before.push(fn),
    afterAll: (fn) => void hooks.after.push(fn),
  };
  describeEvidenceQueryContract(
    'under test',
    async () => {
      const recorder = new InMemoryEvidenceRecorder();
      return { recorder, query: queryOf(recorder), close: async () => {} };
    },
    { runner },
  );
  const outcomes = new Map<string, string>();
  for (const fn of hooks.before) await fn();
  for (const { name, fn } of tests) {
    try {
      await fn();
      outcomes.set(name, 'passed');
    } catch (error) {
      outcomes.set(name, `failed: ${(error as Error).message}`);
    }
  }
  for (const fn of hooks.after) await fn();
  return outcomes;
}

const LOOKUPS = 'refuses text holding U+0000 or a lone surrogate, and dates outside the years 0001–9999, alike';

describe('the evidence-query contract and the lookups the API refuses', () => {
  it('fails an adapter that answers a capability holding U+0000, or a date past 9999, instead of refusing it', async () => {
    const outcomes = await runContract(lenientQuery);

    expect(outcomes.get(LOOKUPS)).toMatch(
      /^failed: Missing expected rejection: list, U\+0000 must be refused with InvalidEvidenceFilterError/,
    );
    // Only these lookups: the adapter passes the rest of the contract.
    expect([...outcomes].filter(([name, outcome]) => name !== LOOKUPS && outcome !== 'passed')).toEqual([]);
  });

  it('fails an adapter that refuses the text but reads a date outside 0001–9999 as no bound', async () => {
    const outcomes = await runContract((recorder) => {
      const inner = new InMemoryEvidenceQuery(recorder);
      const lenient = lenientQuery(recorder);
      return {
        list: (filter) => (unstorable(filter?.capability) ? inner.list(filter) : lenient.list(filter)),
        run: (correlationId) => inner.run(correlationId),
        shadowSummary: (filter) =>
          unstorable(filter?.capability) ? inner.shadowSummary(filter) : lenient.shadowSummary!(filter),
      };
    });

    expect(outcomes.get(LOOKUPS)).toBe(
      'failed: Missing expected rejection: list, until in the year 10000 must be refused with InvalidEvidenceFilterError',
    );
  });

  it('passes an adapter that refuses these lookups with InvalidEvidenceFilterError in words of its own', async () => {
    // A third-party store cannot word them as the built-in ones do: the helper for a correlation id is not exported.
    const ownWords = () => new InvalidEvidenceFilterError('this store cannot look that up');
    const outcomes = await runContract((recorder) => {
      const inner = new InMemoryEvidenceQuery(recorder);
      const outOfRange = (filter: { since?: Date; until?: Date }) =>
        bound(filter.since) !== filter.since || bound(filter.until) !== filter.until;
      return {
        list: async (filter: EvidenceFilter = {}) => {
          if (unstorable(filter.capability) || outOfRange(filter)) throw ownWords();
          return inner.list(filter);
        },
        run: async (correlationId: string) => {
          if (unstorable(correlationId)) throw ownWords();
          return inner.run(correlationId);
        },
        shadowSummary: async (filter: ShadowSummaryFilter = {}) => {
          if (unstorable(filter.capability) || outOfRange(filter)) throw ownWords();
          return inner.shadowSummary(filter);
        },
      };
    });

    expect(outcomes.get(LOOKUPS)).toBe('passed');
    expect([...outcomes].filter(([, outcome]) => outcome !== 'passed')).toEqual([]);
  });

  it('control: the in-memory query passes every test of the contract, these lookups included', async () => {
    const outcomes = await runContract((recorder) => new InMemoryEvidenceQuery(recorder));

    expect(outcomes.get(LOOKUPS)).toBe('passed');
    expect([...outcomes.values()].every((outcome) => outcome === 'passed')).toBe(true);
  });
});
