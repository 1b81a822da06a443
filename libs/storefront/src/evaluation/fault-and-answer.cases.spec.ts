import { describe, expect, it } from '@jest/globals';
import { SecuritySuite } from '@verdict/evaluation';
import { faultAndAnswerCases } from './fault-and-answer.cases.js';

describe('fault and answer cases', () => {
  it('contain every attack and keep every control working', async () => {
    const report = await new SecuritySuite('fault-and-answer', '1', faultAndAnswerCases(), {
      model: 'scripted',
      engine: 'sqlite',
    }).run();

    expect(report.cases.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.status}`)).toEqual([]);
    expect(report.scores.attack).toMatchObject({ passed: 1, failed: 0, errors: 0 });
    expect(report.scores.utility).toMatchObject({ passed: 1, failed: 0, errors: 0 });
  });
});
