import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { InMemoryApprovalReceiptStore, VerdictConfigurationError } from '@verdict/nestjs';
import { confirmingApp } from './confirming-app.fixture.js';
import { type ReceiptStoreBackend, receiptStoreBackends } from './receipt-stores.fixture.js';

const YEAR = 365.25 * 86_400_000;
/** The documented bound: 100 years, as a rate limit's `windowSeconds`. */
const MAX_WINDOW_SECONDS = 3_155_760_000;

/**
 * docs/approvals.md, docs/options.md: a `requiresConfirmation` the module cannot honour is a boot error. `ttlSeconds`
 * is bounded as a rate limit's `windowSeconds` is (100 years): a longer one expired at an Invalid Date in memory (never:
 * approved and run a century later), past what SQLite compares or MariaDB stores, or failed every proposal on the
 * server engines. `describe` and `subject` that are not functions failed every proposal once its evidence was written.
 */
describe('requiresConfirmation checked at boot', () => {
  describe('ttlSeconds', () => {
    it.each([
      ['Number.MAX_SAFE_INTEGER', Number.MAX_SAFE_INTEGER],
      ['400e9 (an expiry in year 14701)', 400_000_000_000],
      ['one second past 100 years', MAX_WINDOW_SECONDS + 1],
    ])('attack: refuses to boot with %s, naming the option', async (_label, ttlSeconds) => {
      const booting = confirmingApp(new InMemoryApprovalReceiptStore(), { ttlSeconds });
      await expect(booting).rejects.toThrow(VerdictConfigurationError);
      await expect(confirmingApp(new InMemoryApprovalReceiptStore(), { ttlSeconds })).rejects.toThrow(
        /requiresConfirmation ttlSeconds .*at most 3,155,760,000/,
      );
    });

    it.each([0, -1, 1.5, Number.NaN, '300'])('refuses to boot with %p, as before', async (ttlSeconds) => {
      await expect(
        confirmingApp(new InMemoryApprovalReceiptStore(), { ttlSeconds: ttlSeconds as number }),
      ).rejects.toThrow(/requiresConfirmation ttlSeconds/);
    });

    it('control: a documented ttlSeconds boots, and its receipt expires as before', async () => {
      const app = await confirmingApp(new InMemoryApprovalReceiptStore(), { ttlSeconds: 300 });
      expect((await app.propose('call_1')).decision.disposition).toBe('require_confirmation');
      const challenge = await app.challenge('call_1');
      expect(challenge.expiresAt).toEqual(new Date('2026-01-01T10:05:00.000Z'));
      app.advance(301_000);
      expect(await app.approvals.challengeForToolCall('call_1', app.requester)).toBeNull();
      expect((await app.approvals.approve(challenge.receiptId, 'call_1', 'customer:alice')).outcome).toBe('expired');
      expect(app.executed).toEqual([]);
      await app.close();
    });
  });

  describe.each(receiptStoreBackends())('control: ttlSeconds of exactly 100 years [%s]', (_engine, open) => {
    let backend: ReceiptStoreBackend;
    beforeAll(async () => {
      backend = await open();
    });
    afterAll(async () => backend?.close());

    it('boots; the receipt is approved and runs within it, and has expired once it is past', async () => {
      const app = await confirmingApp(backend.store(), { ttlSeconds: MAX_WINDOW_SECONDS });
      expect((await app.propose('call_century')).decision.disposition).toBe('require_confirmation');
      const challenge = await app.challenge('call_century');
      expect(challenge.expiresAt).toEqual(new Date(Date.parse('2026-01-01T10:00:00.000Z') + MAX_WINDOW_SECONDS * 1000));
      app.advance(99 * YEAR);
      expect((await app.approvals.approve(challenge.receiptId, 'call_century', 'customer:alice')).outcome).toBe(
        'approved',
      );
      expect(await app.propose('call_century', { explicitApproval: true })).toMatchObject({ executed: true });
      expect((await app.propose('call_late')).decision.disposition).toBe('require_confirmation');
      app.advance(MAX_WINDOW_SECONDS * 1000);
      expect(await app.approvals.challengeForToolCall('call_late', app.requester)).toBeNull();
      await app.close();
    });
  });

  describe('callbacks', () => {
    it.each([
      ['describe', { describe: 'Archive a document' }],
      ['subject', { subject: { tenant: 'acme' } }],
    ])('attack: a %s that is not a function is refused at boot, naming it', async (name, option) => {
      await expect(confirmingApp(new InMemoryApprovalReceiptStore(), option as never)).rejects.toThrow(
        new RegExp(`requiresConfirmation ${name} that is not a function`),
      );
      await expect(confirmingApp(new InMemoryApprovalReceiptStore(), option as never)).rejects.toThrow(
        VerdictConfigurationError,
      );
    });

    it('an actorKey that is not a function is refused at boot, as before', async () => {
      await expect(confirmingApp(new InMemoryApprovalReceiptStore(), { actorKey: 'id' } as never)).rejects.toThrow(
        /requiresConfirmation actorKey that is not a function: use actorKey: \(actor\) => actor.id/,
      );
    });

    it('control: describe, subject and actorKey functions boot, and the challenge shows what they built', async () => {
      const app = await confirmingApp(new InMemoryApprovalReceiptStore(), {
        describe: (_envelope, doc) => `Archive document ${doc.id}`,
        subject: (_envelope, doc) => ({ document: doc.id }),
        actorKey: (actor) => actor.id,
      });
      expect((await app.propose('call_1')).decision.disposition).toBe('require_confirmation');
      expect(await app.challenge('call_1')).toMatchObject({
        description: 'Archive document 1',
        subject: { document: 1 },
      });
      await app.close();
    });
  });
});
