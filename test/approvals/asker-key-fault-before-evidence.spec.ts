import { afterEach, describe, expect, it } from '@jest/globals';
import { createMongoAbility } from '@casl/ability';
import { Test, type TestingModule } from '@nestjs/testing';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalService,
  type DecisionRecord,
  ExecutionTargetPolicy,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  type JsonValue,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromProposal,
  requiresConfirmation,
} from '@verdict/nestjs';

/** Evidence whose writes fail while `down`: a database outage as a proposal meets it. */
class DownableEvidenceRecorder extends InMemoryEvidenceRecorder {
  down = false;

  override async recordDecision(record: DecisionRecord): Promise<void> {
    if (this.down) throw new Error('evidence database unavailable');
    await super.recordDecision(record);
  }
}

interface Row {
  readonly tenant: string | null;
  readonly id: number;
}
type Key = ((actor: { id: string }) => JsonValue) | undefined;

const confirmed = (name: string, actorKey: Key) =>
  defineCapability<{ id: number }, Row, string>(
    {
      name,
      description: name,
      action: 'act',
      subject: 'Thing',
      arguments: z.object({ id: z.number().int() }),
      resolveTarget: fromProposal(({ arguments: a, context }): Row => ({ tenant: context.tenant, id: a.id })),
      executionTarget: ExecutionTargetPolicy.refresh({
        name: `${name}-by-id`,
        identity: (row: Row) => ({ tenant: row.tenant, id: row.id }),
        refresh: (row: Row) => ({ ...row }),
      }),
      requiresConfirmation: requiresConfirmation({
        bind: (_envelope, row: Row) => ({ id: row.id }),
        reason: 'confirm',
        ...(actorKey === undefined ? {} : { actorKey }),
      }),
    },
    () => 'done',
  );

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

/**
 * `orders.refund`, confirmed under a key that looks the actor up in a customer directory (which can be down:
 * `outage`), and `orders.cancel`, confirmed under the actor itself: a proposal of either counts the actor's pending
 * receipts under both keys (`askerFingerprints`, ADR 0184).
 */
async function setup() {
  const outage = new Error('customer directory unavailable');
  const directory = { up: true };
  const evidence = new DownableEvidenceRecorder();
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility([{ action: 'act', subject: 'all' }]) },
        approvals: new InMemoryApprovalReceiptStore(),
        evidence,
        capabilities: [
          confirmed('orders.refund', (actor) => {
            if (!directory.up) throw outage;
            return `customer:${actor.id}`;
          }),
          confirmed('orders.cancel', undefined),
        ],
      }),
    ],
  }).compile();
  await moduleRef.init();
  booted.push(moduleRef);
  const contexts = moduleRef.get(ActionContextStore);
  const verdict = moduleRef.get(VerdictService);
  const approvals = moduleRef.get(ApprovalService);
  const propose = (capability: string, toolCallId: string) =>
    contexts.run(alice, () => verdict.execute({ capability, arguments: { id: 7 }, toolCallId }));
  /** The stages and dispositions recorded for `capability`, in order. */
  const recorded = (capability: string) =>
    evidence
      .decisions()
      .filter((record) => record.capability === capability)
      .map((record) => `${record.stage}:${record.disposition}`);
  return { propose, recorded, approvals, evidence, directory, outage };
}

const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: { conversationId: 'c-1' } };

describe("a confirming capability's key that throws for the asker fails the proposal before any evidence is written for a receipt (ADR 0208)", () => {
  it("attack: with evidence down too, the caller sees the key's fault, as the capability's own proposal does; never an evidence-write stop", async () => {
    const { propose, approvals, evidence, directory, outage } = await setup();
    directory.up = false;
    evidence.down = true;

    // A fault before mutation: the refund's own proposal fails with the key's error.
    await expect(propose('orders.refund', 'call_1')).rejects.toBe(outage);
    // The cancel's proposal asks the refund's key for its pending cap: the same fault, before anything is written.
    await expect(propose('orders.cancel', 'call_2')).rejects.toBe(outage);

    directory.up = true;
    expect(await approvals.challengeForToolCall('call_2', alice)).toBeNull();
    expect(evidence.decisions()).toEqual([]);
  });

  it('control: with evidence up, the failed proposal leaves the records a fault before mutation leaves, and no receipt', async () => {
    const { propose, recorded, approvals, directory, outage } = await setup();
    directory.up = false;

    await expect(propose('orders.refund', 'call_1')).rejects.toBe(outage);
    await expect(propose('orders.cancel', 'call_2')).rejects.toBe(outage);

    expect(recorded('orders.cancel')).toEqual(recorded('orders.refund'));
    expect(recorded('orders.cancel').length).toBeGreaterThan(0);
    directory.up = true;
    expect(await approvals.challengeForToolCall('call_2', alice)).toBeNull();
  });

  it('control: with the directory up, the proposal is asked for confirmation and its question recorded', async () => {
    const { propose, recorded, approvals } = await setup();

    expect(await propose('orders.cancel', 'call_2')).toMatchObject({
      executed: false,
      decision: { disposition: 'require_confirmation' },
    });
    expect(recorded('orders.cancel').at(-1)).toBe('approval:require_confirmation');
    expect(await approvals.challengeForToolCall('call_2', alice)).toMatchObject({ capability: 'orders.cancel' });
  });
});
