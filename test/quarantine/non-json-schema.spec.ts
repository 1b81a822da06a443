import { describe, expect, it } from '@jest/globals';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { ProvenanceSource, QuarantineService, QuarantinedExtraction, VerdictConfigurationError } from '@verdict/nestjs';
import { QuarantinedReaders } from '@verdict/nestjs/langchain';
import { z } from 'zod';
import { BILL, BILL_IBAN, billFixture, billSchema } from './bill.fixture.js';

/**
 * A schema whose output is not plain JSON (docs/quarantine.md §3, §5): the quarantined model's answer is JSON, so only
 * the application's schema can make the value something JSON cannot write. That is a `VerdictConfigurationError`
 * naming the schema — when it is registered, before the model is asked, or (a transform) before anything is recorded
 * or emitted — never a bare `TypeError` after the extraction silently raised no event.
 */
async function application(answers: string[]) {
  const app = await billFixture(answers, { imports: [EventEmitterModule.forRoot()] });
  const quarantine = app.moduleRef.get(QuarantineService);
  const events: QuarantinedExtraction[] = [];
  app.moduleRef
    .get(EventEmitter2)
    .on(QuarantinedExtraction.event, (event: QuarantinedExtraction) => events.push(event));
  const extract = <S extends z.ZodType>(schema: S) =>
    app.as(() => quarantine.extract(quarantine.quarantine(BILL, ProvenanceSource.mcp('files')), schema));
  return { ...app, events, extract };
}

/** What `fn` threw, or `undefined`. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

const ANSWER = JSON.stringify({ iban: BILL_IBAN, amount: 120 });

describe('quarantined reading with a schema whose output is not plain JSON', () => {
  it('attack: z.coerce.bigint() is named as the schema’s fault before the model is asked; nothing is emitted', async () => {
    const app = await application([ANSWER]);
    const failure = await app
      .extract(z.object({ iban: z.string(), amount: z.coerce.bigint() }))
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(VerdictConfigurationError);
    expect((failure as Error).message).toMatch(/outputs a bigint at #\/properties\/amount, which is not JSON/);
    expect((failure as Error).message).not.toContain(BILL_IBAN);
    expect(app.quarantined.callCount).toBe(0);
    expect(app.events).toEqual([]);
  });

  for (const [name, schema, type] of [
    ['a bigint', z.object({ amount: z.number().transform((n) => BigInt(n)) }), 'bigint'],
    ['a Date', z.object({ due: z.string().transform((s) => new Date(s)) }), 'Date'],
    [
      'a class',
      z.object({
        iban: z.string().transform(
          (s) =>
            new (class Iban {
              constructor(readonly v: string) {}
            })(s),
        ),
      }),
      'Iban',
    ],
  ] as const)
    it(`attack: a transform to ${name} is a VerdictConfigurationError naming the schema, before anything is emitted`, async () => {
      const app = await application([JSON.stringify({ amount: 120, due: '2026-04-01', iban: BILL_IBAN })]);
      const failure = await app.extract(schema as z.ZodType).catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(VerdictConfigurationError);
      expect((failure as Error).message).toMatch(/^Quarantine schema with schemaFingerprint [0-9a-f]+/);
      expect((failure as Error).message).toContain(`output a ${type}, which is not JSON`);
      expect((failure as Error).message).not.toContain(BILL_IBAN);
      expect(app.events).toEqual([]);
    });

  it('attack: a registered schema with a Date output is refused when the agent’s reading is made', async () => {
    const app = await application([]);
    const readers = app.moduleRef.get(QuarantinedReaders);

    const failure = thrown(() => readers.forAgent({ schemas: { bill: billSchema, due: z.object({ at: z.date() }) } }));

    expect(failure).toBeInstanceOf(VerdictConfigurationError);
    expect((failure as Error).message).toMatch(/^Quarantine schema "due" outputs a date at #\/properties\/at/);
    expect(app.quarantined.callCount).toBe(0);
  });

  it('control: a plain-JSON schema (a transform to JSON included) still extracts and raises QuarantinedExtraction', async () => {
    const app = await application([ANSWER]);
    const readers = app.moduleRef.get(QuarantinedReaders);
    expect(() => readers.forAgent({ schemas: { bill: billSchema } })).not.toThrow();

    const extraction = await app.extract(billSchema.extend({ iban: z.string().transform((s) => s.toLowerCase()) }));

    expect(extraction.value).toEqual({ iban: BILL_IBAN.toLowerCase(), amount: 120 });
    expect(extraction.text).toBe(JSON.stringify({ iban: BILL_IBAN.toLowerCase(), amount: 120 }));
    expect(app.events.map((event) => event.outcome)).toEqual(['extracted']);
  });
});
