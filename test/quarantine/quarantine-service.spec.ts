import { describe, expect, it } from '@jest/globals';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import {
  type ActionContextStore,
  ActionContextStore as Contexts,
  ProvenanceSource,
  ProvenanceWindow,
  QuarantineExtractionError,
  QuarantineService,
  QuarantinedExtraction,
  Trust,
  VerdictConfigurationError,
  VerdictService,
  labelContent,
  withProvenance,
} from '@verdict/nestjs';
import { z } from 'zod';
import { alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { BILL, BILL_IBAN, INJECTION, TYPED_IBAN, billFixture, billSchema } from './bill.fixture.js';

const BILL_ANSWER = JSON.stringify({ iban: BILL_IBAN, amount: 120 });
const trustedOnly = { untrustedContext: 'allow', arguments: { recipient: 'trusted_only' } } as const;

/** The application's own code: a Nest service that quarantines a file and pays from what it extracts. */
async function application(answers: string[]) {
  const app = await billFixture(answers, { payments: trustedOnly, imports: [EventEmitterModule.forRoot()] });
  const quarantine = app.moduleRef.get(QuarantineService);
  const verdict = app.moduleRef.get(VerdictService);
  const contexts: ActionContextStore = app.moduleRef.get(Contexts);
  const events: QuarantinedExtraction[] = [];
  app.moduleRef
    .get(EventEmitter2)
    .on(QuarantinedExtraction.event, (event: QuarantinedExtraction) => events.push(event));
  /** Pays `recipient` on behalf of an agent whose window held the user's request and the extraction. */
  const pay = (request: string, extracted: readonly ReturnType<typeof labelContent>[], recipient: string) =>
    withProvenance(
      ProvenanceWindow.of([labelContent(request, ProvenanceSource.user('chat'), Trust.Trusted), ...extracted]),
      () =>
        verdict.execute({ capability: 'payments.send', arguments: { recipient, amount: 120 }, toolCallId: 'app-1' }),
    );
  return { ...app, quarantine, contexts, events, pay };
}

describe('QuarantineService from application code', () => {
  it('utility: extracts a schema-typed value whose content carries the file’s label; a typed IBAN is paid', async () => {
    const app = await application([BILL_ANSWER]);
    const extraction = await app.as(async () => {
      const handle = app.quarantine.quarantine(BILL, ProvenanceSource.mcp('files'));
      return app.quarantine.extract(handle, billSchema, { instruction: 'the IBAN and amount due' });
    });

    expect(extraction.value).toEqual({ iban: BILL_IBAN, amount: 120 });
    expect(extraction.content.map(({ label }) => [label.source.toString(), label.trust])).toEqual([
      ['mcp:files', 'untrusted'],
    ]);
    const paid = await app.as(() => app.pay(`Pay my bill to ${TYPED_IBAN}.`, extraction.content, TYPED_IBAN));
    expect(paid.executed).toBe(true);
  });

  it('attack: the extracted IBAN in a trusted_only argument is refused', async () => {
    const app = await application([BILL_ANSWER]);
    const refused = await app.as(async () => {
      const handle = app.quarantine.quarantine(BILL, ProvenanceSource.mcp('files'));
      const { value, content } = await app.quarantine.extract(handle, billSchema);
      return app.pay('Pay the bill in bill.txt.', content, value.iban);
    });

    expect(refused).toMatchObject({ executed: false, decision: { stage: 'provenance', disposition: 'deny' } });
    expect(app.payments).toEqual([]);
  });

  it('attack: output that does not fit the schema is a typed error carrying failed checks, never the answer', async () => {
    const app = await application([JSON.stringify({ iban: BILL_IBAN, amount: 'everything' })]);
    const handle = await app.as(async () => app.quarantine.quarantine(BILL, ProvenanceSource.mcp('files')));
    const failure = await app.as(() => app.quarantine.extract(handle, billSchema)).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(QuarantineExtractionError);
    expect(failure).toMatchObject({ failure: 'schema_mismatch', issues: ['amount: invalid_type'] });
    expect((failure as Error).message).not.toContain(BILL_IBAN);
  });

  it('attack: a key the quarantined model wrote is never a failed check’s path; control: the schema’s own names are', async () => {
    const fees = z.object({ total: z.number(), fees: z.record(z.string(), z.number()) });
    const app = await application([JSON.stringify({ total: 'all', fees: { [INJECTION]: 'everything' } })]);
    const handle = await app.as(async () => app.quarantine.quarantine(BILL, ProvenanceSource.mcp('files')));
    const failure = await app.as(() => app.quarantine.extract(handle, fees)).catch((error: unknown) => error);

    expect(failure).toMatchObject({
      failure: 'schema_mismatch',
      issues: ['total: invalid_type', expect.stringMatching(/^fees\.#[0-9a-f]{16}: invalid_type$/)],
    });
    expect((failure as Error).message).not.toContain('SYSTEM NOTE');
  });

  it('attack: a handle is another actor’s, tenant’s or conversation’s, for nobody else; control: its own reads it', async () => {
    const app = await application([BILL_ANSWER]);
    const handle = await app.as(async () => app.quarantine.quarantine(BILL, ProvenanceSource.mcp('files')));
    const asBob = app.contexts.run({ ...alice, actor: { id: 'bob' } }, () =>
      app.quarantine.extract(handle, z.object({ iban: z.string() })),
    );
    const otherTenant = app.contexts.run({ ...alice, tenant: 'globex' }, () =>
      app.quarantine.extract(handle.id, z.object({ iban: z.string() })),
    );

    const otherConversation = app.contexts.run({ ...alice, metadata: { conversationId: 'c-2' } }, () =>
      app.quarantine.extract(handle.id, z.object({ iban: z.string() })),
    );

    await expect(asBob).rejects.toMatchObject({ failure: 'unknown_handle' });
    await expect(otherTenant).rejects.toMatchObject({ failure: 'unknown_handle' });
    await expect(otherConversation).rejects.toMatchObject({ failure: 'unknown_handle' });
    expect(app.quarantined.callCount).toBe(0);
    await expect(app.as(() => app.quarantine.extract(handle, billSchema))).resolves.toMatchObject({
      value: { iban: BILL_IBAN, amount: 120 },
    });
  });

  it('attack: an actor without a stable key holds no handle another such actor could read; control: alice’s is hers', async () => {
    const app = await application([BILL_ANSWER]);
    const keyless = (id: string) => ({ ...alice, actor: { id, seen: new Date(0) } });
    const held = () =>
      app.contexts.run(keyless('mallory'), () => app.quarantine.quarantine(BILL, ProvenanceSource.mcp('files')));
    expect(held).toThrow(/plain JSON|canonical|actorKey/i);
    const mine = await app.as(async () => app.quarantine.quarantine(BILL, ProvenanceSource.mcp('files')));
    const asKeyless = app.contexts.run(keyless('eve'), () => app.quarantine.extract(mine, billSchema));
    await expect(asKeyless).rejects.toThrow(/plain JSON|canonical|actorKey/i);
    // A handle nobody holds answers such an actor the same way: whose they are is asked first.
    const unknown = app.contexts.run(keyless('eve'), () => app.quarantine.extract(`q-${'0'.repeat(32)}`, billSchema));
    await expect(unknown).rejects.toThrow(/plain JSON|canonical|actorKey/i);
    expect(app.quarantined.callCount).toBe(0);
    await expect(app.as(() => app.quarantine.extract(mine, billSchema))).resolves.toMatchObject({
      value: { iban: BILL_IBAN, amount: 120 },
    });
  });

  it('events: each extraction raises QuarantinedExtraction with fingerprints only', async () => {
    const app = await application([BILL_ANSWER, 'no JSON here']);
    const handle = await app.as(async () => app.quarantine.quarantine(BILL, ProvenanceSource.mcp('files')));
    await app.as(() => app.quarantine.extract(handle, billSchema));
    await app.as(() => app.quarantine.extract(handle, billSchema)).catch(() => undefined);

    expect(app.events).toEqual([
      expect.objectContaining({
        outcome: 'extracted',
        sources: ['mcp:files'],
        passageFingerprints: [expect.stringMatching(/^[0-9a-f]{64}$/)],
        valueFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
        tenantFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
      expect.objectContaining({ outcome: 'not_json', valueFingerprint: null }),
    ]);
    const published = JSON.stringify(app.events);
    for (const secret of [handle.id, BILL_IBAN, 'Hydro', BILL_ANSWER]) expect(published).not.toContain(secret);
  });

  it('bad input: quarantining trusted content, or extracting without a quarantined model, is a configuration error', async () => {
    const app = await application([]);
    expect(() =>
      app.quarantine.quarantineContent('x', [labelContent('x', ProvenanceSource.user('chat'), Trust.Trusted)]),
    ).toThrow('Only untrusted content is quarantined');
    const bare = await paymentsFixture();
    const service = bare.moduleRef.get(QuarantineService);
    await expect(service.extract('q-1', billSchema)).rejects.toThrow('quarantine: { model }');
  });
});

describe('QuarantineService given arguments of the wrong type (a wiring mistake)', () => {
  it.each([
    ['extract options null', (q: QuarantineService, h: string) => q.extract(h, billSchema, null as never)],
    ['an extract options array', (q: QuarantineService, h: string) => q.extract(h, billSchema, [] as never)],
    [
      'a non-string instruction',
      (q: QuarantineService, h: string) => q.extract(h, billSchema, { instruction: 12 as never }),
    ],
    ['a handle that is neither a handle nor its id', (q: QuarantineService) => q.extract(null as never, billSchema)],
  ])('attack: %s is a VerdictConfigurationError; the model is not asked, no event is raised', async (_what, call) => {
    const app = await application([BILL_ANSWER]);
    const refused = await app.as(async () => {
      const handle = app.quarantine.quarantine(BILL, ProvenanceSource.mcp('files'));
      return call(app.quarantine, handle.id).then(
        () => undefined,
        (error: unknown) => error,
      );
    });

    expect(refused).toBeInstanceOf(VerdictConfigurationError);
    expect((refused as Error).message).toMatch(/^QuarantineService\.extract /);
    expect(app.quarantined.callCount).toBe(0);
    expect(app.events).toEqual([]);
  });

  it('attack: quarantining a text that is not a string is a VerdictConfigurationError, and no handle is made', async () => {
    const app = await application([]);
    const attempts = await app.as(async () =>
      [
        () => app.quarantine.quarantine(12345 as never, ProvenanceSource.mcp('files')),
        () => app.quarantine.quarantineContent(undefined as never, []),
        () => app.quarantine.quarantineContent('x', null as never),
      ].map((attempt) => {
        try {
          return attempt();
        } catch (error) {
          return error;
        }
      }),
    );

    for (const refused of attempts) expect(refused).toBeInstanceOf(VerdictConfigurationError);
    expect(attempts.map((refused) => (refused as Error).message)).toEqual([
      'QuarantineService.quarantine holds text: a string; got number.',
      'QuarantineService.quarantineContent holds text: a string; got undefined.',
      "QuarantineService.quarantineContent needs the text's labelled items as an array; got null.",
    ]);
  });

  it('control: extract without options, with {} and by the handle object answers the value', async () => {
    const app = await application([BILL_ANSWER, BILL_ANSWER, BILL_ANSWER]);
    const values = await app.as(async () => {
      const handle = app.quarantine.quarantine(BILL, ProvenanceSource.mcp('files'));
      return [
        (await app.quarantine.extract(handle.id, billSchema)).value,
        (await app.quarantine.extract(handle.id, billSchema, {})).value,
        (await app.quarantine.extract(handle, billSchema, { instruction: undefined })).value,
      ];
    });

    expect(values).toEqual([
      { iban: BILL_IBAN, amount: 120 },
      { iban: BILL_IBAN, amount: 120 },
      { iban: BILL_IBAN, amount: 120 },
    ]);
    expect(app.quarantined.callCount).toBe(3);
  });
});
