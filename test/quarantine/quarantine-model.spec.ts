import { describe, expect, it } from '@jest/globals';
import { VerdictConfigurationError } from '@verdict/nestjs';
import { QuarantinedReaders } from '@verdict/nestjs/langchain';
import { paymentsFixture } from '../provenance/payments.fixture.js';
import { BILL_IBAN, billFixture, billSchema, payTheBill } from './bill.fixture.js';

// docs/options.md: `quarantine` is `{ model, capacity? }`. A model that cannot be asked, or quarantined reading
// without a model, is a wiring mistake found at boot (or when the agent is built), never at the first extraction.

const BILL_ANSWER = JSON.stringify({ iban: BILL_IBAN, amount: 120 });
const allowContext = { untrustedContext: 'allow', arguments: { recipient: 'allow' } } as const;

describe('quarantine.model', () => {
  it.each([
    ['{}', {}],
    ['no model', undefined],
    ['invoke that is not a function', { invoke: 'gpt-4.1-mini' }],
  ])('attack: a quarantine model with %s does not boot', async (_label, model) => {
    await expect(paymentsFixture({ quarantine: { model: model as never } })).rejects.toThrow(VerdictConfigurationError);
  });

  it('attack: quarantined reading for an agent without the quarantine option is refused when it is built', async () => {
    const app = await paymentsFixture({});
    const readers = app.moduleRef.get(QuarantinedReaders);
    expect(() => readers.forAgent({ schemas: { bill: billSchema } })).toThrow(VerdictConfigurationError);
    expect(() => readers.forAgent({ schemas: { bill: billSchema } })).toThrow('quarantine: { model }');
  });

  it('control: the documented configuration boots, and the agent pays the bill from the extracted value', async () => {
    const app = await billFixture([BILL_ANSWER], { payments: allowContext });
    await app.turn('Pay the bill in bill.txt.', payTheBill());
    expect(app.payments.map((payment) => payment.arguments)).toEqual([{ recipient: BILL_IBAN, amount: 120 }]);
  });

  it('control: any object with an invoke function is a quarantine model', async () => {
    const model = { invoke: async () => ({ content: BILL_ANSWER }) };
    const app = await paymentsFixture({ quarantine: { model } });
    expect(() => app.moduleRef.get(QuarantinedReaders).forAgent({ schemas: { bill: billSchema } })).not.toThrow();
  });
});
