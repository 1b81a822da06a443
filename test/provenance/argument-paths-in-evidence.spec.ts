import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  ExecutionTargetPolicy,
  ProvenanceSource,
  ProvenanceWindow,
  Trust,
  VerdictService,
  defineCapability,
  fingerprintString,
  fromContext,
  labelContent,
  withProvenance,
} from '@verdict/nestjs';
import { ATTACKER_IBAN, OWN_IBAN, paymentsFixture } from './payments.fixture.js';

const account = () => ({ __caslSubjectType__: 'Account', id: 'acct-alice', owner: 'alice', tenant: 'acme' });
const target = {
  action: 'pay',
  subject: 'Account',
  resolveTarget: fromContext(account),
  executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'account', identity: () => 'acct-alice' }),
} as const;

/** Transfers keyed by IBAN (a record: its keys are the model's), and payouts as a list of objects. */
const batch = defineCapability(
  {
    name: 'payments.batch',
    description: 'Send several payments',
    ...target,
    arguments: z.object({ transfers: z.record(z.string(), z.number()) }),
    provenance: { arguments: { transfers: { derivedFrom: 'trusted' } } },
  },
  () => ({ paid: true }),
);
const payouts = defineCapability(
  {
    name: 'payments.payouts',
    description: 'Send payouts',
    ...target,
    arguments: z.object({ payouts: z.array(z.object({ iban: z.string(), amount: z.number() })) }),
    provenance: { arguments: { 'payouts.*.amount': { derivedFrom: 'trusted' } } },
  },
  () => ({ paid: true }),
);

/** The customer's own message: a window with nothing untrusted in it. */
const window = ProvenanceWindow.of([
  labelContent(`Pay 25 to ${OWN_IBAN}.`, ProvenanceSource.user('principal'), Trust.Trusted),
]);

describe('argument paths in evidence', () => {
  it.each([
    ['an IBAN', ATTACKER_IBAN],
    ['digits alone (a card number), no array index', '4111111111119731'],
  ])('attack: a record key the model wrote (%s) reaches evidence only as a fingerprint of its path', async (_, key) => {
    const fixture = await paymentsFixture({ capabilities: [batch, payouts] });
    const verdict = fixture.moduleRef.get(VerdictService);
    const result = await fixture.as(() =>
      withProvenance(window, () =>
        verdict.execute({ capability: 'payments.batch', arguments: { transfers: { [key]: 99 } } }),
      ),
    );
    expect(result.executed).toBe(false);
    const recorded = JSON.stringify(fixture.evidence.decisions());
    expect(recorded).not.toContain(key);
    expect(recorded).toContain(`#${fingerprintString(`transfers.${key}`).slice(0, 16)}`);
  });

  it('control: a path the policy spells, with array indices, is named in clear', async () => {
    const fixture = await paymentsFixture({ capabilities: [batch, payouts] });
    const verdict = fixture.moduleRef.get(VerdictService);
    const result = await fixture.as(() =>
      withProvenance(window, () =>
        verdict.execute({
          capability: 'payments.payouts',
          arguments: { payouts: [{ iban: OWN_IBAN, amount: 99 }] },
        }),
      ),
    );
    expect(result.executed).toBe(false);
    expect(fixture.evidence.decisions().map((record) => record.reason)).toContainEqual(
      expect.stringContaining('payouts.0.amount'),
    );
  });
});
