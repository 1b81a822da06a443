import { describe, expect, it } from '@jest/globals';
import { SecuritySuite } from '@verdict/evaluation';
import { modelInputGuardCases } from './model-input-guard.cases.js';

describe('modelInputGuardCases', () => {
  it('contains every attack and keeps every paired utility control working', async () => {
    const result = await new SecuritySuite('model-input-guard', '1', modelInputGuardCases()).run();
    const failing = result.cases.filter((entry) => entry.status !== 'passed');
    expect(
      failing.map((entry) => [
        entry.id,
        entry.status,
        entry.assertions.filter((a) => !a.passed).map((a) => a.id),
        entry.harnessError,
      ]),
    ).toEqual([]);
    expect(result.cases.map((entry) => entry.purpose).sort()).toEqual([
      'attack',
      'attack',
      'attack',
      'attack',
      'attack',
      'utility',
      'utility',
      'utility',
      'utility',
      'utility',
    ]);
  });
});
