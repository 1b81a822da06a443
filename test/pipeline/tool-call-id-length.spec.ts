import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ActionContextStore,
  type ApprovalReceiptStore,
  ApprovalService,
  type AuthorizedAction,
  type ExecutionClaimStore,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  VerdictService,
  atMostOnce,
  requiresConfirmation,
} from '@verdict/nestjs';
import {
  TypeOrmApprovalReceiptStore,
  TypeOrmExecutionClaimStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource } from '@verdict/testing-kit';
import { type Document, alice, documentsFixture } from './documents.fixture.js';

/** The longest tool-call id Verdict accepts (the MCP server's cap; the columns that store one hold 255). */
const LONGEST = 200;

/** Receipts and claims on one storage: memory, or TypeORM on an engine of the database matrix. */
interface Storage {
  readonly receipts: ApprovalReceiptStore;
  readonly claims: ExecutionClaimStore;
  close(): Promise<void>;
}

const storages: Array<[string, () => Promise<Storage>]> = [
  [
    'memory',
    async () => ({
      receipts: new InMemoryApprovalReceiptStore(),
      claims: new InMemoryExecutionClaimStore(),
      close: async () => {},
    }),
  ],
  ...databaseEngines().map((engine): [string, () => Promise<Storage>] => [
    engine.name,
    async () => {
      const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      return {
        receipts: new TypeOrmApprovalReceiptStore(dataSource),
        claims: new TypeOrmExecutionClaimStore(dataSource),
        close: () => dropDataSource(dataSource),
      };
    },
  ]),
];

/** `documents.archive`, confirmed by a human and run at most once per document, booted on `storage`. */
async function archiveApp(storage: Storage) {
  const fixture = documentsFixture();
  const archived: AuthorizedAction[] = [];
  const capability = fixture.documentCapability(
    {
      name: 'documents.archive',
      description: 'Archive a document',
      requiresConfirmation: requiresConfirmation<{ id: number }, Document>({
        bind: (_envelope, doc) => ({ doc: doc.id }),
        reason: 'Archiving hides the document from everyone.',
      }),
      atMostOnce: atMostOnce<{ id: number }, Document>({
        name: 'archive-document',
        key: (_envelope, doc) => ({ tenant: doc.tenant, doc: doc.id }),
      }),
    },
    (action: AuthorizedAction) => {
      archived.push(action);
      return 'archived';
    },
  );
  const evidence = new InMemoryEvidenceRecorder();
  const { moduleRef } = await fixture.boot({
    capabilities: [capability],
    approvals: storage.receipts,
    executionClaims: storage.claims,
    evidence,
  });
  const verdict = moduleRef.get(VerdictService);
  const approvals = moduleRef.get(ApprovalService);
  const requester = { ...alice, metadata: { conversationId: 'c1' } };
  const propose = (toolCallId: string, explicitApproval = false) =>
    moduleRef
      .get(ActionContextStore)
      .run(requester, () =>
        verdict.execute({ capability: 'documents.archive', arguments: { id: 1 }, toolCallId }, { explicitApproval }),
      );
  return { propose, approvals, requester, archived, evidence };
}

describe.each(storages)('tool-call ids longer than Verdict accepts [%s]', (_engine, open) => {
  let storage: Storage;
  beforeAll(async () => (storage = await open()));
  afterAll(async () => storage?.close());

  it('attack: a 300-character tool-call id is denied at proposal; no receipt is issued, nothing claimed or run', async () => {
    const app = await archiveApp(storage);
    const toolCallId = 'c'.repeat(300);

    for (const explicitApproval of [false, true])
      expect(await app.propose(toolCallId, explicitApproval)).toMatchObject({
        executed: false,
        decision: { disposition: 'deny', stage: 'proposal' },
      });

    // One character over the bound is refused too.
    expect((await app.propose('c'.repeat(LONGEST + 1))).decision).toMatchObject({ stage: 'proposal' });
    expect(await storage.receipts.pendingForToolCall(toolCallId, new Date())).toEqual([]);
    expect(await storage.claims.unresolved()).toEqual([]);
    expect(app.archived).toEqual([]);
    // The evidence says why, without the id or a fingerprint of it.
    const records = app.evidence.decisions();
    expect(records.filter((record) => record.stage !== 'proposal')).toEqual([]);
    expect(records.map((record) => record.reason)).toContain(
      `malformed tool-call id: longer than ${LONGEST} characters`,
    );
    expect(records.every((record) => record.toolCallFingerprint === null)).toBe(true);
    expect(JSON.stringify(records)).not.toContain(toolCallId);
  });

  it('control: a blank id longer than the bound is no id, decided as a one-space id is, not refused as malformed', async () => {
    const app = await archiveApp(storage);

    const long = (await app.propose(' '.repeat(LONGEST + 1))).decision;
    const short = (await app.propose(' ')).decision;
    expect(long).toMatchObject({ disposition: short.disposition, stage: short.stage });
    expect(short.stage).not.toBe('proposal');
    expect(app.evidence.decisions().map((record) => record.reason)).not.toContain(
      `malformed tool-call id: longer than ${LONGEST} characters`,
    );
  });

  it(`control: a tool-call id of ${LONGEST} characters is confirmed, approved and run once`, async () => {
    const app = await archiveApp(storage);
    const toolCallId = 'k'.repeat(LONGEST);

    expect((await app.propose(toolCallId)).decision.disposition).toBe('require_confirmation');
    const challenge = (await app.approvals.challengeForToolCall(toolCallId, app.requester))!;
    expect((await app.approvals.approve(challenge.receiptId, toolCallId, 'customer:alice')).outcome).toBe('approved');

    expect(await app.propose(toolCallId, true)).toMatchObject({ executed: true });
    expect(app.archived).toHaveLength(1);
  });
});
