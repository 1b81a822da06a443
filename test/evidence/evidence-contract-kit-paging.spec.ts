import { describe, expect, it } from '@jest/globals';
import {
  type DecisionRecord,
  type EvidenceFilter,
  type EvidenceQuery,
  InMemoryEvidenceQuery,
  InMemoryEvidenceRecorder,
  type PruneReport,
  checkedEvidenceFilter,
} from '@verdict/nestjs';
import {
  type ContractRunner,
  type ContractTestFn,
  describeEvidenceQueryContract,
  describeEvidenceRecorderContract,
} from '@verdict/nestjs/testing';

/** Runs the tests a contract suite registers with `runner`, in order: each test's outcome by name. */
async function outcomesOf(register: (runner: ContractRunner) => void): Promise<Map<string, string>> {
  const tests: Array<{ name: string; fn: ContractTestFn }> = [];
  const hooks: { before: ContractTestFn[]; after: ContractTestFn[] } = { before: [], after: [] };
  register({
    describe: (_name, fn) => void fn(),
    it: (name, fn) => void tests.push({ name, fn }),
    beforeAll: (fn) => void hooks.before.push(fn),
    afterAll: (fn) => void hooks.after.push(fn),
  });
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

const queryContract = (queryOf: (recorder: InMemoryEvidenceRecorder) => EvidenceQuery) =>
  outcomesOf((runner) =>
    describeEvidenceQueryContract(
      'under test',
      async () => {
        const recorder = new InMemoryEvidenceRecorder();
        return { recorder, query: queryOf(recorder), close: async () => {} };
      },
      { runner },
    ),
  );

const recorderContract = (recorder: InMemoryEvidenceRecorder) =>
  outcomesOf((runner) =>
    describeEvidenceRecorderContract(
      'under test',
      async () => ({
        recorder,
        read: async (id) => recorder.decisions().filter((record) => record.correlationId === id),
        readReleases: async (id) => recorder.releases().filter((record) => record.correlationId === id),
        close: async () => {},
      }),
      { runner },
    ),
  );

const PAGING = 'pages with after: each record once, in list order, through a full page of one millisecond';
const PRUNE_CUTOFF =
  'refuses a prune cutoff outside the years 0001–9999 (UTC) with InvalidEvidenceFilterError, pruning nothing';
const failedOnly = (outcomes: Map<string, string>) => [...outcomes].filter(([, outcome]) => outcome !== 'passed');

/** The order and the filter of `InMemoryEvidenceQuery` before the cursor: three keys, ties beyond them unordered. */
const threeKeys = (a: DecisionRecord, b: DecisionRecord) =>
  b.recordedAt.getTime() - a.recordedAt.getTime() ||
  (a.correlationId < b.correlationId ? -1 : a.correlationId > b.correlationId ? 1 : 0) ||
  b.sequence - a.sequence;

describe('the evidence-query contract pages with a cursor', () => {
  it('fails an adapter written before the cursor, which lists its first page again whatever `after` says', async () => {
    const outcomes = await queryContract((recorder) => {
      const inner = new InMemoryEvidenceQuery(recorder);
      return {
        list: ({ after: _ignored, ...filter }: EvidenceFilter = {}) => inner.list(filter),
        run: (correlationId) => inner.run(correlationId),
        shadowSummary: (filter) => inner.shadowSummary(filter),
      };
    });

    expect(outcomes.get(PAGING)).toMatch(/^failed: /);
    expect(failedOnly(outcomes).map(([name]) => name)).toEqual([PAGING]);
  });

  it('fails an adapter whose cursor orders by time, correlation id and sequence only: it skips a full tie', async () => {
    const outcomes = await queryContract((recorder) => {
      const inner = new InMemoryEvidenceQuery(recorder);
      return {
        list: async (filter: EvidenceFilter = {}) => {
          const { after, limit, ...rest } = checkedEvidenceFilter(filter);
          const matching = (await inner.list({ ...rest, limit: 1000 })).sort(threeKeys);
          return matching
            .filter((record) => after === undefined || threeKeys(after as DecisionRecord, record) < 0)
            .slice(0, limit);
        },
        run: (correlationId) => inner.run(correlationId),
        shadowSummary: (filter) => inner.shadowSummary(filter),
      };
    });

    expect(outcomes.get(PAGING)).toMatch(/^failed: /);
    expect(failedOnly(outcomes).map(([name]) => name)).toEqual([PAGING]);
  });

  it('control: the in-memory query passes every test of the contract, paging included', async () => {
    const outcomes = await queryContract((recorder) => new InMemoryEvidenceQuery(recorder));

    expect(outcomes.get(PAGING)).toBe('passed');
    expect(failedOnly(outcomes)).toEqual([]);
  });
});

describe('the evidence-recorder contract and a prune cutoff outside the years 0001–9999', () => {
  it('fails a recorder whose prune reads such a cutoff as a date instead of refusing it', async () => {
    /** Prunes before any Date it is given: past 9999 every record, before the year 1 nothing. */
    class LenientRecorder extends InMemoryEvidenceRecorder {
      override async prune(before: Date): Promise<PruneReport> {
        if (Number.isNaN(before.getTime())) return super.prune(before);
        const outside = before.getUTCFullYear() < 1 || before.getUTCFullYear() > 9999;
        return outside ? { pruned: 0, anchored: 0 } : super.prune(before);
      }
    }
    const outcomes = await recorderContract(new LenientRecorder());

    expect(outcomes.get(PRUNE_CUTOFF)).toBe(
      'failed: Missing expected rejection: a prune before the year 0 must be refused with InvalidEvidenceFilterError',
    );
    expect(failedOnly(outcomes).map(([name]) => name)).toEqual([PRUNE_CUTOFF]);
  });

  it('control: the in-memory recorder passes every test of the contract, the refused cutoffs included', async () => {
    const outcomes = await recorderContract(new InMemoryEvidenceRecorder());

    expect(outcomes.get(PRUNE_CUTOFF)).toBe('passed');
    expect(failedOnly(outcomes)).toEqual([]);
  });
});
