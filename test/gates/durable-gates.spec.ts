import { describe, expect, it } from '@jest/globals';
import { EventEmitterModule, EventEmitter2 } from '@nestjs/event-emitter';
import { z } from 'zod';
import {
  ActionContextStore,
  type AuthorizedAction,
  ClaimResolvedOutOfBandError,
  type DecisionRecord,
  EvidenceWriteFailed,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryRateLimitStore,
  type RateLimitStore,
  VerdictConfigurationError,
  VerdictService,
  atMostOnce,
  defineCapability,
  fixedWindow,
  fromProposal,
} from '@verdict/nestjs';
import { type Actor, Document, alice, bob, documentsFixture } from '../pipeline/documents.fixture.js';

/** A promise the test settles by hand: holds an executor open without sleeping. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function setup(
  options: {
    rateLimits?: RateLimitStore;
    evidence?: InMemoryEvidenceRecorder;
    claims?: InMemoryExecutionClaimStore;
  } = {},
) {
  const fixture = documentsFixture();
  const claims = options.claims ?? new InMemoryExecutionClaimStore();
  const rateLimits = options.rateLimits ?? new InMemoryRateLimitStore();
  let now = new Date('2026-01-01T10:00:00.000Z');
  const published: AuthorizedAction<{ id: number; channel: string; note?: string }, Document>[] = [];
  const pings: string[] = [];
  const executor: { hold?: Promise<void>; fail?: Error } = {};
  const byId = fromProposal<{ id: number }, Document>(({ arguments: args, context }) =>
    fixture.load(context.tenant, args.id),
  );
  const common = {
    action: 'read',
    subject: 'Document',
    resolveTarget: byId,
    executionTarget: fixture.refreshPolicy,
  } as const;
  const publish = defineCapability(
    {
      ...common,
      name: 'documents.publish',
      description: 'Publish a document to a channel',
      arguments: z.object({ id: z.number().int(), channel: z.string(), note: z.string().optional() }),
      // The operation's identity: the document and the channel; the free-text note does not make a new one.
      atMostOnce: atMostOnce<{ id: number; channel: string }, Document>({
        name: 'publish-document',
        key: ({ arguments: args }, doc) => ({ tenant: doc.tenant, doc: doc.id, channel: args.channel }),
      }),
    },
    async (action) => {
      await executor.hold;
      if (executor.fail) throw executor.fail;
      published.push(action);
      return `published ${action.target.id}`;
    },
  );
  const ping = defineCapability(
    {
      ...common,
      name: 'documents.ping',
      description: 'Ping a document owner',
      arguments: z.object({ id: z.number().int() }),
      rateLimit: fixedWindow({
        name: 'pings-per-actor',
        limit: 2,
        windowSeconds: 60,
        key: ({ context }) => ({ tenant: context.tenant, actor: (context.actor as Actor).id }),
        reason: 'ping budget exhausted',
      }),
    },
    (action) => {
      pings.push((action.context.actor as Actor).id);
      return 'pinged';
    },
  );
  const { moduleRef, evidence } = await fixture.boot({
    capabilities: [publish, ping],
    executionClaims: claims,
    rateLimits,
    clock: () => now,
    evidence: options.evidence,
    imports: [EventEmitterModule.forRoot()],
  });
  const verdict = moduleRef.get(VerdictService);
  const contexts = moduleRef.get(ActionContextStore);
  const as = <T>(context: typeof alice, fn: () => Promise<T>) => contexts.run(context, fn);
  const publishAs = (context: typeof alice, args: object, toolCallId: string) =>
    as(context, () => verdict.execute({ capability: 'documents.publish', arguments: args, toolCallId }));
  const pingAs = (context: typeof alice, id: number) =>
    as(context, () => verdict.execute({ capability: 'documents.ping', arguments: { id } }));
  const records = () => (evidence as InMemoryEvidenceRecorder).decisions();
  return {
    ...fixture,
    moduleRef,
    claims,
    published,
    pings,
    executor,
    publishAs,
    pingAs,
    records,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
    at: (iso: string) => (now = new Date(iso)),
  };
}

const dispositions = (results: { executed: boolean; decision: { disposition: string; stage: string } }[]) =>
  results.map((r) => (r.executed ? 'executed' : `${r.decision.disposition}@${r.decision.stage}`));

describe('durable gates in the pipeline', () => {
  describe('execution claims', () => {
    it('executes a duplicate delivery under a new tool-call id once', async () => {
      const { publishAs, published } = await setup();
      const first = await publishAs(alice, { id: 1, channel: 'web' }, 'call_a');
      const redelivered = await publishAs(alice, { id: 1, channel: 'web' }, 'call_b');
      expect(dispositions([first, redelivered])).toEqual(['executed', 'deny@execution_claim']);
      expect(published).toHaveLength(1);
    });

    it('treats argument differences the key ignores as the same operation, and others as new ones', async () => {
      const { publishAs, published } = await setup();
      await publishAs(alice, { id: 1, channel: 'web', note: 'first try' }, 'c1');
      const reworded = await publishAs(alice, { id: 1, channel: 'web', note: 'please, really' }, 'c2');
      const otherChannel = await publishAs(alice, { id: 1, channel: 'mail' }, 'c3');
      expect(dispositions([reworded, otherChannel])).toEqual(['deny@execution_claim', 'executed']);
      expect(published.map((a) => a.arguments.channel)).toEqual(['web', 'mail']);
    });

    it('hands the executor the claim id as its execution identity', async () => {
      const { publishAs, published, claims } = await setup();
      await publishAs(alice, { id: 1, channel: 'web' }, 'c1');
      const claim = await claims.find(published[0].executionIdentity);
      expect(claim).toMatchObject({ status: 'completed', attempt: 1, capability: 'documents.publish' });
      expect(published[0].executionIdentity).toMatch(/^claim_[A-Za-z0-9_-]{43}$/);
    });

    it('denies a re-entrant duplicate while the first executor is still running', async () => {
      const { publishAs, published, executor } = await setup();
      const gate = deferred();
      executor.hold = gate.promise;
      const first = publishAs(alice, { id: 1, channel: 'web' }, 'c1');
      const second = await publishAs(alice, { id: 1, channel: 'web' }, 'c2');
      expect(dispositions([second])).toEqual(['deny@execution_claim']);
      gate.resolve();
      expect((await first).executed).toBe(true);
      expect(published).toHaveLength(1);
    });

    it('leaves a failed execution indeterminate, blocking duplicates until an operator releases it for exactly one retry', async () => {
      const { publishAs, published, executor, claims, records } = await setup();
      const fault = new Error('carrier timeout');
      executor.fail = fault;
      await expect(publishAs(alice, { id: 1, channel: 'web' }, 'c1')).rejects.toBe(fault);
      const [stuck] = await claims.unresolved();
      expect(stuck).toMatchObject({ status: 'indeterminate', attempt: 1 });
      executor.fail = undefined;
      expect(dispositions([await publishAs(alice, { id: 1, channel: 'web' }, 'c2')])).toEqual(['deny@execution_claim']);

      const released = await claims.resolve({
        claimId: stuck.id,
        to: 'released',
        by: 'operator:7',
        reason: 'carrier confirmed nothing was sent',
        force: false,
        now: new Date(),
      });
      expect(released.outcome).toBe('resolved');
      const retry = await publishAs(alice, { id: 1, channel: 'web' }, 'c3');
      const again = await publishAs(alice, { id: 1, channel: 'web' }, 'c4');
      expect(dispositions([retry, again])).toEqual(['executed', 'deny@execution_claim']);
      expect(published.map((a) => a.executionIdentity)).toEqual([stuck.id]);
      expect(
        records()
          .filter((r) => r.stage === 'execution_claim')
          .map((r) => [r.disposition, r.claimStatus, r.claimAttempt]),
      ).toEqual([
        ['permit', 'claimed', 1],
        ['deny', 'indeterminate', 1],
        ['permit', 'claimed', 2],
        ['deny', 'completed', 2],
      ]);
    });

    it('tells the caller the executor ran when its claim was resolved out of band meanwhile', async () => {
      const { publishAs, executor, claims } = await setup();
      const gate = deferred();
      executor.hold = gate.promise;
      const running = publishAs(alice, { id: 1, channel: 'web' }, 'c1');
      const [claim] = await waitForUnresolved(claims);
      await forceResolve(claims, claim.id, 'completed');
      gate.resolve();
      const error = await rejectionOf(running);
      expect(error).toBeInstanceOf(ClaimResolvedOutOfBandError);
      expect(error).toMatchObject({ claimId: claim.id, output: 'published 1' });
    });

    it('never lets an executor of a released attempt finish the attempt admitted after it', async () => {
      const { publishAs, executor, claims } = await setup();
      const [first, second] = [deferred(), deferred()];
      executor.hold = first.promise;
      const stale = publishAs(alice, { id: 1, channel: 'web' }, 'c1');
      const [claim] = await waitForUnresolved(claims);
      // The operator releases the attempt that looks stuck; the operation is admitted again while it still runs.
      await forceResolve(claims, claim.id, 'released');
      executor.hold = second.promise;
      const live = publishAs(alice, { id: 1, channel: 'web' }, 'c2');
      while ((await claims.find(claim.id))?.status !== 'claimed') await new Promise((resolve) => setImmediate(resolve));
      first.resolve();
      const error = await rejectionOf(stale);
      expect(error).toBeInstanceOf(ClaimResolvedOutOfBandError);
      expect(await claims.find(claim.id)).toMatchObject({ status: 'claimed', attempt: 2 });
      second.resolve();
      expect(await live).toMatchObject({ executed: true });
      expect(await claims.find(claim.id)).toMatchObject({ status: 'completed', attempt: 2 });
    });

    it('sends the completion while the evidence of the gates passed is being written (ADR 0111)', async () => {
      const written = deferred();
      let writing = false;
      class HeldWrite extends InMemoryEvidenceRecorder {
        override async recordDecisions(records: readonly DecisionRecord[]) {
          if (records.some((record) => record.stage === 'execution_claim')) {
            writing = true;
            await written.promise;
          }
          return super.recordDecisions(records);
        }
      }
      let writingAtCompletion: boolean | null = null;
      class SeesTheWrite extends InMemoryExecutionClaimStore {
        override async complete(claimId: string, now: Date) {
          writingAtCompletion = writing;
          written.resolve();
          return super.complete(claimId, now);
        }
      }
      const { publishAs, claims, records } = await setup({ evidence: new HeldWrite(), claims: new SeesTheWrite() });
      expect((await publishAs(alice, { id: 1, channel: 'web' }, 'c1')).executed).toBe(true);
      expect(writingAtCompletion).toBe(true);
      expect(await claims.unresolved()).toHaveLength(0);
      expect(records().map((r) => `${r.disposition}@${r.stage}`)).toContain('permit@execution_claim');
    });

    it('keeps the evidence and refuses the operation again when the completion fails after the executor ran', async () => {
      class CompletionFails extends InMemoryExecutionClaimStore {
        override complete(): Promise<boolean> {
          return Promise.reject(new Error('connection terminated'));
        }
      }
      const { publishAs, claims, published, records } = await setup({ claims: new CompletionFails() });
      await expect(publishAs(alice, { id: 1, channel: 'web' }, 'c1')).rejects.toThrow('connection terminated');
      expect(published).toHaveLength(1);
      expect(records().map((r) => `${r.disposition}@${r.stage}`)).toContain('permit@execution_claim');
      // The claim stays `claimed`: a redelivery is refused, never executed a second time.
      expect(await claims.unresolved()).toMatchObject([{ status: 'claimed' }]);
      const again = await publishAs(alice, { id: 1, channel: 'web' }, 'c2');
      expect(dispositions([again])).toEqual(['deny@execution_claim']);
      expect(published).toHaveLength(1);
    });

    it('spends no claim on a proposal that authorization denies', async () => {
      const { publishAs, claims, published } = await setup();
      const denied = await publishAs(bob, { id: 1, channel: 'web' }, 'c1');
      expect(dispositions([denied])).toEqual(['deny@proposal']);
      expect(await claims.unresolved()).toHaveLength(0);
      expect((await publishAs(alice, { id: 1, channel: 'web' }, 'c2')).executed).toBe(true);
      expect(published).toHaveLength(1);
    });
  });

  describe('rate limits', () => {
    it('executes two pings in a window and throttles the third: a permission is not a budget', async () => {
      const { pingAs, pings, records } = await setup();
      const results = [await pingAs(alice, 1), await pingAs(alice, 1), await pingAs(alice, 1)];
      expect(dispositions(results)).toEqual(['executed', 'executed', 'throttle@rate_limit']);
      expect(pings).toEqual(['alice', 'alice']);
      const throttled = records().at(-1)!;
      expect(throttled).toMatchObject({
        stage: 'rate_limit',
        disposition: 'throttle',
        reason: 'ping budget exhausted',
        rateLimitLimit: 2,
        rateLimitRemaining: 0,
      });
      expect(throttled.rateLimitResetAt?.toISOString()).toBe('2026-01-01T10:01:00.000Z');
    });

    it('opens a new window at the epoch-aligned boundary', async () => {
      const { pingAs, at } = await setup();
      at('2026-01-01T10:00:59.999Z');
      await pingAs(alice, 1);
      await pingAs(alice, 1);
      expect((await pingAs(alice, 1)).decision.disposition).toBe('throttle');
      at('2026-01-01T10:01:00.000Z');
      expect((await pingAs(alice, 1)).executed).toBe(true);
    });

    it('keeps buckets apart by their binding', async () => {
      const { pingAs, pings } = await setup();
      for (const _ of [1, 2, 3]) {
        await pingAs(alice, 1);
        await pingAs(bob, 2);
      }
      expect(pings.sort()).toEqual(['alice', 'alice', 'bob', 'bob']);
    });

    it('consumes no unit for proposals that are denied before the gate', async () => {
      const { pingAs, pings } = await setup();
      for (const _ of [1, 2, 3]) expect((await pingAs(alice, 2)).decision.stage).toBe('proposal');
      expect(dispositions([await pingAs(alice, 1), await pingAs(alice, 1)])).toEqual(['executed', 'executed']);
      expect(pings).toHaveLength(2);
    });

    it('lets a store failure propagate as an error, never as a throttle', async () => {
      const failing: RateLimitStore = {
        consume: () => Promise.reject(new Error('connection terminated')),
        prune: async () => 0,
      };
      const { pingAs, pings, records } = await setup({ rateLimits: failing });
      await expect(pingAs(alice, 1)).rejects.toThrow('connection terminated');
      expect(pings).toHaveLength(0);
      expect(records().some((r: DecisionRecord) => r.disposition === 'throttle')).toBe(false);
    });
  });

  describe('evidence after a mutating gate', () => {
    it('keeps the result and emits EvidenceWriteFailed when a write fails after the gate', async () => {
      class FailsAfterGate extends InMemoryEvidenceRecorder {
        override async recordDecision(record: DecisionRecord) {
          if (record.stage === 'rate_limit') throw new Error('evidence store down');
          return super.recordDecision(record);
        }
      }
      const { pingAs, pings, moduleRef } = await setup({ evidence: new FailsAfterGate() });
      const events: EvidenceWriteFailed[] = [];
      moduleRef.get(EventEmitter2).on(EvidenceWriteFailed.event, (event: EvidenceWriteFailed) => events.push(event));
      const result = await pingAs(alice, 1);
      expect(result.executed).toBe(true);
      expect(pings).toEqual(['alice']);
      expect(events).toMatchObject([{ capability: 'documents.ping', stage: 'rate_limit' }]);
    });
  });

  describe('wiring', () => {
    it('fails at boot when a capability uses a gate without its store', async () => {
      const fixture = documentsFixture();
      const gated = defineCapability(
        {
          name: 'documents.gated',
          description: 'x',
          action: 'read',
          subject: 'Document',
          arguments: z.object({ id: z.number() }),
          resolveTarget: fromProposal(() => new Document(1, 'acme', 'alice', 't')),
          executionTarget: fixture.refreshPolicy,
          atMostOnce: atMostOnce({ name: 'once', key: () => 1 }),
        },
        () => 'ok',
      );
      await expect(fixture.boot({ capabilities: [gated] })).rejects.toThrow(VerdictConfigurationError);
    });
  });
});

/** Polls the in-memory store until the running executor's claim shows up (no sleeping: each turn yields once). */
/** An operator's forced resolution of a claim whose executor still runs. */
function forceResolve(claims: InMemoryExecutionClaimStore, claimId: string, to: 'completed' | 'released') {
  return claims.resolve({ claimId, to, by: 'operator:7', reason: 'looked stuck', force: true, now: new Date() });
}

/** What `promise` was rejected with, or `null` when it resolved. */
function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (error: unknown) => error,
  );
}

async function waitForUnresolved(claims: InMemoryExecutionClaimStore) {
  for (;;) {
    const open = await claims.unresolved();
    if (open.length > 0) return open;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
