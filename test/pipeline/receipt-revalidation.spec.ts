import { afterEach, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import {
  ActionContextStore,
  ApprovalService,
  InMemoryEvidenceRecorder,
  VerdictModule,
  VerdictService,
} from '@verdict/nestjs';
import { TypeOrmApprovalReceiptStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { StorefrontAbilityFactory } from '../../libs/storefront/src/authorization/storefront-ability.factory.js';
import { StorefrontContexts } from '../../libs/storefront/src/authorization/storefront-contexts.js';
import { RefundCapabilities } from '../../libs/storefront/src/capabilities/refund.capabilities.js';
import { StorefrontCapability } from '../../libs/storefront/src/capabilities/storefront-capability.js';
import { Order } from '../../libs/storefront/src/entities/order.entity.js';
import { storefrontEntities } from '../../libs/storefront/src/entities/storefront-entities.js';
import { storefrontMigrations } from '../../libs/storefront/src/migrations/storefront-migrations.js';
import { seedStorefront } from '../../libs/storefront/src/seed/seed-storefront.js';
import { type DatabaseEngine, databaseEngines, dropDataSource, openDataSource } from '@verdict/testing-kit';
import { DataSource } from 'typeorm';
import { InterleavingAbilityFactory } from './interleaving-ability-factory.js';

// docs/architecture.md step 10: the receipt is validated again against the execution target's binding. The refund
// binding holds the order's version; here the order changes after the approved call's proposal target was
// read and before it is refreshed, so steps 2–5 see the approved version and only step 10 sees the new one.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const REFUND = { orderId: 1002, amountCents: 500 };

async function setup(engine: DatabaseEngine) {
  const dataSource = await openDataSource(engine, {
    entities: [...storefrontEntities, ...verdictEntities],
    migrations: [...storefrontMigrations, ...verdictMigrations],
  });
  cleanups.push(() => dropDataSource(dataSource));
  await seedStorefront(dataSource);
  const abilities = new InterleavingAbilityFactory(new StorefrontAbilityFactory(dataSource));
  const receipts = new TypeOrmApprovalReceiptStore(dataSource);
  const evidence = new InMemoryEvidenceRecorder();
  const moduleRef = await Test.createTestingModule({
    imports: [VerdictModule.forRoot({ abilityFactory: abilities, evidence, approvals: receipts })],
    providers: [{ provide: DataSource, useValue: dataSource }, RefundCapabilities],
  }).compile();
  await moduleRef.init();
  cleanups.push(() => moduleRef.close());
  const verdict = moduleRef.get(VerdictService);
  const approvals = moduleRef.get(ApprovalService);
  const contexts = moduleRef.get(ActionContextStore);
  const refunds = moduleRef.get(RefundCapabilities).refunds;
  const orders = dataSource.getRepository(Order);
  const refund = (explicitApproval: boolean) =>
    contexts.run(StorefrontContexts.customer72, () =>
      verdict.execute(
        { capability: StorefrontCapability.RefundOrder, arguments: REFUND, toolCallId: 'call_refund' },
        { explicitApproval },
      ),
    );
  /** Customer 72 proposes the refund and approves the challenge it gets; returns the approved receipt's id. */
  const proposeAndApprove = async () => {
    const proposed = await refund(false);
    expect(proposed.decision.disposition).toBe('require_confirmation');
    const challenge = (await approvals.challengeForToolCall('call_refund', StorefrontContexts.customer72))!;
    expect(await approvals.approve(challenge.receiptId, 'call_refund', 'customer:72')).toMatchObject({
      outcome: 'approved',
    });
    return challenge.receiptId;
  };
  const approvalPhases = () =>
    evidence
      .decisions()
      .filter((record) => record.approvalPhase !== null)
      .map((record) => `${record.approvalPhase}:${record.approvalOutcome}`);
  return { abilities, receipts, orders, refunds, refund, proposeAndApprove, approvalPhases };
}

for (const engine of databaseEngines()) {
  describe(`receipt re-validation against the execution target [${engine.name}]`, () => {
    it('refunds the approved order once when nothing changed before execution', async () => {
      const { refund, refunds, proposeAndApprove, receipts } = await setup(engine);
      const receiptId = await proposeAndApprove();
      const executed = await refund(true);
      expect(executed).toMatchObject({ executed: true, output: { orderId: 1002, amountCents: 500 } });
      expect(refunds).toEqual([{ orderId: 1002, amountCents: 500 }]);
      expect((await receipts.find(receiptId))?.status).toBe('consumed');
    });

    it('refunds nothing when the order changed between the approved proposal and its refresh, and keeps the receipt unspent', async () => {
      const { abilities, orders, refund, refunds, proposeAndApprove, receipts, approvalPhases } = await setup(engine);
      const receiptId = await proposeAndApprove();
      // A concurrent edit commits while Verdict authorizes the resumed call: after step 2 read version 1.
      abilities.interleave(() => orders.update({ id: 1002 }, { description: 'One synthetic rain jacket, size L' }));
      const resumed = await refund(true);

      expect(resumed.executed).toBe(false);
      expect(resumed.decision).toMatchObject({ disposition: 'require_confirmation', stage: 'approval' });
      expect(refunds).toEqual([]);
      expect(await orders.findOneByOrFail({ id: 1002 })).toMatchObject({ version: 2 });
      expect((await receipts.find(receiptId))?.status).toBe('approved');
      expect(approvalPhases().slice(-2)).toEqual(['proposal_validation:approved', 'execution_validation:mismatch']);
      // The customer is asked again, about the order as it now is.
      expect(!resumed.executed && resumed.challenge?.receiptId).not.toBe(receiptId);
    });
  });
}
