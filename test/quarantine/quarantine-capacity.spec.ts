import { describe, expect, it } from '@jest/globals';
import {
  ProvenanceSource,
  QuarantineExtractionError,
  QuarantineService,
  VerdictConfigurationError,
} from '@verdict/nestjs';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { paymentsFixture } from '../provenance/payments.fixture.js';
import { BILL, BILL_IBAN, billSchema } from './bill.fixture.js';

const BILL_ANSWER = JSON.stringify({ iban: BILL_IBAN, amount: 120 });
const boot = (capacity: number) =>
  paymentsFixture({ quarantine: { model: new ScriptedChatModel([{ text: BILL_ANSWER }]), capacity } });

describe('quarantine.capacity', () => {
  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'attack: capacity %p does not boot (0 forgets every handle, NaN never forgets one)',
    async (capacity) => {
      await expect(boot(capacity)).rejects.toThrow(VerdictConfigurationError);
    },
  );

  it('control: capacity 1 keeps the newest handle and forgets the one before', async () => {
    const app = await boot(1);
    const quarantine = app.moduleRef.get(QuarantineService);
    const [older, newer] = await app.as(async () => [
      quarantine.quarantine(BILL, ProvenanceSource.mcp('files')),
      quarantine.quarantine(`${BILL}\n`, ProvenanceSource.mcp('files')),
    ]);

    await expect(app.as(() => quarantine.extract(older!, billSchema))).rejects.toThrow(QuarantineExtractionError);
    expect((await app.as(() => quarantine.extract(newer!, billSchema))).value).toEqual({
      iban: BILL_IBAN,
      amount: 120,
    });
  });
});
