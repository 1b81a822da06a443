import { describe, expect, it } from '@jest/globals';
import {
  ActionContextStore,
  InMemoryEvidenceRecorder,
  InMemoryRateLimitStore,
  type RateLimitRequest,
  VerdictService,
  defineCapability,
  fixedWindow,
  fromProposal,
} from '@verdict/nestjs';
import { z } from 'zod';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';

/**
 * What a recorder keeps of a run's records, through the module (ADR 0075): nothing the application holds can change a
 * kept record afterwards, and a value the chain cannot hash is refused when written, never kept to break linking later.
 */
async function setup(options: Parameters<ReturnType<typeof documentsFixture>['boot']>[0] = {}) {
  const fixture = documentsFixture();
  const { moduleRef, evidence } = await fixture.boot(options);
  const verdict = moduleRef.get(VerdictService);
  const read = (id: number) =>
    moduleRef
      .get(ActionContextStore)
      .run(alice, () => verdict.execute({ capability: 'documents.read', arguments: { id }, toolCallId: `call_${id}` }));
  return { ...fixture, moduleRef, evidence: evidence as InMemoryEvidenceRecorder, read };
}

const intact = async (recorder: InMemoryEvidenceRecorder) => (await recorder.verify()).every((stream) => stream.intact);

describe('the records a run writes, as the in-memory recorder keeps them', () => {
  it("attack: an application clock's Date changed after the call reaches no kept record", async () => {
    const now = new Date('2026-12-07T10:00:00.000Z');
    const { evidence, read, moduleRef } = await setup({ clock: () => now });

    await read(1);
    now.setTime(Date.parse('1999-01-01T00:00:00.000Z'));

    const kept = evidence.decisions();
    expect(kept.length).toBeGreaterThan(1);
    expect(kept.every((record) => record.recordedAt.toISOString() === '2026-12-07T10:00:00.000Z')).toBe(true);
    expect(await intact(evidence)).toBe(true);
    await moduleRef.close();
  });

  it('control: each record carries the instant the clock told when it was made', async () => {
    let now = new Date('2026-12-07T10:00:00.000Z');
    const { evidence, read, moduleRef } = await setup({ clock: () => now });

    await read(1);
    now = new Date('2026-12-07T11:00:00.000Z');
    await read(1);

    const hours = evidence.decisions().map((record) => record.recordedAt.getUTCHours());
    expect(new Set(hours)).toEqual(new Set([10, 11]));
    expect(await intact(evidence)).toBe(true);
    await moduleRef.close();
  });

  /** A rate-limit store of the application's own whose answer holds `remaining`. */
  const limitedBy = (remaining: number) => {
    const fixture = documentsFixture();
    const store = new InMemoryRateLimitStore();
    const rateLimits = {
      consume: async (request: RateLimitRequest) => ({ ...(await store.consume(request)), remaining }),
      prune: (now: Date) => store.prune(now),
    };
    const capability = defineCapability(
      {
        name: 'documents.limited-read',
        description: 'Read a document, a hundred times an hour',
        action: 'read',
        subject: 'Document',
        arguments: z.object({ id: z.number().int() }),
        resolveTarget: fromProposal(({ arguments: args, context }) =>
          fixture.load(context.tenant, (args as { id: number }).id),
        ),
        executionTarget: fixture.refreshPolicy,
        rateLimit: fixedWindow({ name: 'hourly', limit: 100, windowSeconds: 3600, key: () => ({}), reason: 'hourly' }),
      },
      (action) => ({ id: action.target.id }),
    );
    return { fixture, rateLimits, capability };
  };

  it('attack: a fact the chain cannot hash (a store answering NaN) is refused when written, never kept', async () => {
    const { fixture, rateLimits, capability } = limitedBy(Number.NaN);
    const { moduleRef, evidence } = await fixture.boot({ capabilities: [capability], rateLimits });
    const recorder = evidence as InMemoryEvidenceRecorder;
    const verdict = moduleRef.get(VerdictService);

    const result = moduleRef
      .get(ActionContextStore)
      .run(alice, () =>
        verdict.execute({ capability: 'documents.limited-read', arguments: { id: 1 }, toolCallId: 'c' }),
      );

    // Written after the rate limit spent a unit: the failed write is reported and the call's result stands.
    await expect(result).resolves.toMatchObject({ executed: true });
    expect(recorder.decisions().some((record) => Number.isNaN(record.rateLimitRemaining))).toBe(false);
    expect(await intact(recorder)).toBe(true);
    await moduleRef.close();
  });

  it('control: the same store answering a count records it', async () => {
    const { fixture, rateLimits, capability } = limitedBy(99);
    const { moduleRef, evidence } = await fixture.boot({ capabilities: [capability], rateLimits });
    const recorder = evidence as InMemoryEvidenceRecorder;
    const verdict = moduleRef.get(VerdictService);

    const result = await moduleRef
      .get(ActionContextStore)
      .run(alice, () =>
        verdict.execute({ capability: 'documents.limited-read', arguments: { id: 1 }, toolCallId: 'c' }),
      );

    expect(result).toMatchObject({ executed: true });
    expect(recorder.decisions().some((record) => record.rateLimitRemaining === 99)).toBe(true);
    expect(await intact(recorder)).toBe(true);
    await moduleRef.close();
  });
});
