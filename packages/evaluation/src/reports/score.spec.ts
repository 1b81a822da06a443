import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { CASE_PURPOSES, type CasePurpose } from '../cases/case-purpose.js';
import { CaseStatus } from '../cases/case-status.js';
import { scoresOf } from './score.js';

const of = (purpose: CasePurpose, ...statuses: CaseStatus[]) => statuses.map((status) => ({ purpose, status }));

describe('scoresOf', () => {
  it('counts each status per purpose', () => {
    const scores = scoresOf([
      ...of('attack', 'passed', 'passed', 'failed', 'error', 'pending', 'pending'),
      ...of('utility', 'failed'),
    ]);

    expect(scores.attack).toEqual({ passed: 2, failed: 1, errors: 1, pending: 2, passRate: 2 / 3 });
    expect(scores.utility).toEqual({ passed: 0, failed: 1, errors: 0, pending: 0, passRate: 0 });
  });

  it('has no pass rate when nothing passed or failed', () => {
    const scores = scoresOf(of('attack', 'error', 'pending'));
    expect([scores.attack.passRate, scores.utility.passRate]).toEqual([null, null]);
  });

  it('keeps the pass rate within [0, 1] and equal to passed / (passed + failed)', () => {
    const entry = fc.record({
      purpose: fc.constantFrom(...CASE_PURPOSES),
      status: fc.constantFrom(...Object.values(CaseStatus)),
    });
    fc.assert(
      fc.property(fc.array(entry), (cases) => {
        const scores = scoresOf(cases);
        for (const purpose of CASE_PURPOSES) {
          const mine = cases.filter((entry) => entry.purpose === purpose);
          const score = scores[purpose];
          expect(score.passed + score.failed + score.errors + score.pending).toBe(mine.length);
          const completed = score.passed + score.failed;
          expect(score.passRate).toBe(completed === 0 ? null : score.passed / completed);
        }
      }),
    );
  });
});
