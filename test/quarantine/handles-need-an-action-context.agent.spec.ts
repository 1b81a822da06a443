import { describe, expect, it } from '@jest/globals';
import { MissingActionContextError, ProvenanceSource, QuarantineService } from '@verdict/nestjs';
import type { ScriptStep } from '@verdict/nestjs/testing/langchain';
import { BILL, BILL_IBAN, billFixture, billSchema } from './bill.fixture.js';

const BILL_ANSWER = JSON.stringify({ iban: BILL_IBAN, amount: 120 });
/** Reads the bill, then answers. */
const READ_THE_BILL: ScriptStep[] = [
  { toolCalls: [{ name: 'read_file', args: { path: 'bill.txt' }, id: 'call_read' }] },
  { text: 'read' },
];

/** The error a run ended with: LangChain wraps a middleware's error in its own, whose cause it is. */
const causeOf = (error: unknown): unknown => (error as { cause?: unknown }).cause ?? error;

/**
 * A handle is the principal's that made it, in its conversation (docs/quarantine.md §3). Outside any action context
 * there is no principal: every such caller (two queue jobs for two customers that forgot `ActionContextStore.run`)
 * would share one owner and read each other's documents. Quarantine and extraction need an action context, as plans
 * do (ADR 0104).
 */
describe('quarantine handles need an action context', () => {
  it('attack: a run outside any action context that reads a file ends there; the quarantined model reads nothing', async () => {
    const app = await billFixture([BILL_ANSWER]);
    const run = app.turn('Read bill.txt.', READ_THE_BILL, { as: null });
    const ended = await run.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(causeOf(ended)).toBeInstanceOf(MissingActionContextError);
    expect(app.quarantined.callCount).toBe(0);
  });

  it('attack: application code outside any context can neither quarantine nor extract, not even a principal’s handle', async () => {
    const app = await billFixture([BILL_ANSWER]);
    const quarantine = app.moduleRef.get(QuarantineService);
    expect(() => quarantine.quarantine(BILL, ProvenanceSource.mcp('files'))).toThrow(MissingActionContextError);
    const alices = await app.as(async () => quarantine.quarantine(BILL, ProvenanceSource.mcp('files')));
    await expect(quarantine.extract(alices.id, billSchema)).rejects.toBeInstanceOf(MissingActionContextError);
    expect(app.quarantined.callCount).toBe(0);
  });

  it('control: inside the principal’s action context the same run reads the bill through a handle, and extracts', async () => {
    const app = await billFixture([BILL_ANSWER]);
    const { model } = await app.turn('Read bill.txt.', READ_THE_BILL);
    const shown = JSON.parse(String(model.toolMessages()[0]?.content)) as { quarantined: string };
    expect(shown.quarantined).toMatch(/^q-/);
    const quarantine = app.moduleRef.get(QuarantineService);
    await expect(app.as(() => quarantine.extract(shown.quarantined, billSchema))).resolves.toMatchObject({
      value: { iban: BILL_IBAN, amount: 120 },
    });
  });
});
