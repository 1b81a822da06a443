import { describe, expect, it } from '@jest/globals';
import { SecuritySuite } from '@verdict/evaluation';
import { approvalReceiptCases } from './approval-receipt.cases.js';

describe('approval receipt cases', () => {
  it('contain every attack and keep every control working', async () => {
    const report = await new SecuritySuite('approval-receipts', '1', approvalReceiptCases(), {
      model: 'scripted',
      engine: 'sqlite',
    }).run();

    expect(report.cases.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.status}`)).toEqual([]);
    expect(report.scores.attack).toMatchObject({ passed: 3, failed: 0, errors: 0 });
    expect(report.scores.utility).toMatchObject({ passed: 2, failed: 0, errors: 0 });
  });
});
