import { describe, expect, it } from '@jest/globals';
import { clopperPearson } from './clopper-pearson.js';

describe('clopperPearson (exact two-sided interval)', () => {
  it('gives the closed forms at the ends: 1 - (α/2)^(1/n) above 0 events, (α/2)^(1/n) below n events', () => {
    for (const n of [1, 5, 25, 30, 300]) {
      expect(clopperPearson(0, n).upper).toBeCloseTo(1 - 0.025 ** (1 / n), 10);
      expect(clopperPearson(0, n).lower).toBe(0);
      expect(clopperPearson(n, n).lower).toBeCloseTo(0.025 ** (1 / n), 10);
      expect(clopperPearson(n, n).upper).toBe(1);
    }
  });

  it('matches published values', () => {
    // 0 of 25: the two-sided 95% upper bound is 0.1372 (the one-sided 95% bound would be 0.1129).
    expect(clopperPearson(0, 25).upper).toBeCloseTo(0.1372, 4);
    expect(1 - 0.05 ** (1 / 25)).toBeCloseTo(0.1129, 4);
    // 5 of 20: (0.0866, 0.4910), the textbook example of the exact interval.
    expect(clopperPearson(5, 20).lower).toBeCloseTo(0.0866, 4);
    expect(clopperPearson(5, 20).upper).toBeCloseTo(0.491, 4);
    // 1 of 10: (0.0025, 0.4450).
    expect(clopperPearson(1, 10).lower).toBeCloseTo(0.0025, 4);
    expect(clopperPearson(1, 10).upper).toBeCloseTo(0.445, 4);
  });

  it('narrows with more trials and widens with more confidence', () => {
    expect(clopperPearson(0, 60).upper).toBeLessThan(clopperPearson(0, 30).upper);
    expect(clopperPearson(3, 30, 0.99).upper).toBeGreaterThan(clopperPearson(3, 30).upper);
  });

  it('refuses counts that are not a binomial outcome', () => {
    expect(() => clopperPearson(0, 0)).toThrow(RangeError);
    expect(() => clopperPearson(4, 3)).toThrow(RangeError);
    expect(() => clopperPearson(1.5, 3)).toThrow(RangeError);
    expect(() => clopperPearson(1, 3, 1)).toThrow(RangeError);
  });
});
