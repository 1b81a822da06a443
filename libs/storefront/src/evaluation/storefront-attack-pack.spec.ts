import { describe, expect, it } from '@jest/globals';
import { EvaluationReport } from '@verdict/evaluation';
import { comparedWithBaseline } from './provenance-packs/pack-report-checks.js';
import { storefrontAttackPack } from './storefront-attack-pack.js';

const BASELINE_FILE = new URL('../../evaluation/storefront-attack-pack.baseline.json', import.meta.url);

/**
 * The storefront attack pack against its checked-in baseline: `npm test` fails on any blocking change
 * (a regression, a new failure, a harness error or removed coverage). After an intended change, re-record
 * it: `npx verdict-eval run libs/storefront/dist/evaluation/storefront-attack-pack.suite.js --out r.json &&
 * npx verdict-eval baseline write r.json libs/storefront/evaluation/storefront-attack-pack.baseline.json`.
 */
describe('Storefront attack pack', () => {
  it('has no blocking change against the checked-in baseline, and every case passes', async () => {
    const result = await storefrontAttackPack().run();
    const report = result.toReport();
    expect(comparedWithBaseline(report, BASELINE_FILE)).toEqual({
      blocking: false,
      changes: expect.stringContaining('0 change(s)'),
    });
    expect(report.cases.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.status}`)).toEqual([]);
    expect(report.scores.attack).toMatchObject({ passed: 19, failed: 0, errors: 0 });
    expect(report.scores.utility).toMatchObject({ passed: 14, failed: 0, errors: 0 });
  });

  it('writes a report that validates and names no attacker host, product text or order description', async () => {
    const json = (await storefrontAttackPack().run()).toJson();
    expect(() => EvaluationReport.parse(json)).not.toThrow();
    for (const raw of ['attacker', 'rain jacket', 'trail lanterns', 'SYSTEM NOTE', 'colleague@acme.example'])
      expect(json).not.toContain(raw);
  });
});
