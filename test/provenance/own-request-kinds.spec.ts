import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import {
  ActionContextStore,
  DeferredExecutionWorker,
  InMemoryExecutionClaimStore,
  InMemoryEvidenceRecorder,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  ProvenanceSource,
  ProvenanceWindow,
  ReviewService,
  ToolKind,
  Trust,
  VerdictModule,
  VerdictService,
  defineCapability,
  labelContent,
  withProvenance,
} from '@verdict/nestjs';
import { refundFixture } from '@verdict/testing-kit';
import { VerdictPipeline } from '../../packages/verdict/src/pipeline/verdict-pipeline.js';
import { ATTACKER_IBAN, OWN_IBAN, paymentsFixture } from './payments.fixture.js';

const TRUSTED_ONLY = { untrustedContext: 'allow', arguments: { recipient: 'trusted_only' } } as const;
const pay = (recipient: string) => ({ capability: 'payments.send', arguments: { recipient, amount: 25 } });

describe('only the application’s own request counts as trusted without a window (ADR 0082)', () => {
  it.each([
    ['the model-input guard', ToolKind.ModelInputGuard],
    ['a kind this version does not know', 'future_kind' as ToolKind],
  ])('attack: a proposal reaching the pipeline as %s without a window is unobserved, and not paid', async (_, kind) => {
    const fixture = await paymentsFixture({ payments: TRUSTED_ONLY });
    const pipeline = fixture.moduleRef.get(VerdictPipeline);

    const result = await fixture.as(() => pipeline.execute(pay(ATTACKER_IBAN), kind));

    expect(result).toMatchObject({ executed: false, decision: { disposition: 'deny', stage: 'provenance' } });
    expect(fixture.payments).toHaveLength(0);
    const decision = fixture.evidence.decisions().find((record) => record.stage === 'provenance');
    expect(decision?.reason).toContain('The context window was not observed');
  });

  it('attack: a dry run (evaluate) without a window reports the deny an agent’s call would meet', async () => {
    const fixture = await paymentsFixture({ payments: TRUSTED_ONLY });
    const verdict = fixture.moduleRef.get(VerdictService);

    const result = await fixture.as(() => verdict.evaluate(pay(OWN_IBAN)));

    expect(result).toMatchObject({ executed: false, decision: { disposition: 'deny', stage: 'provenance' } });
  });

  it('utility: application code paying without a window is the principal’s own request, and pays', async () => {
    const fixture = await paymentsFixture({ payments: TRUSTED_ONLY });
    const verdict = fixture.moduleRef.get(VerdictService);

    const result = await fixture.as(() => verdict.execute(pay(OWN_IBAN)));

    expect(result).toMatchObject({ executed: true });
    expect(fixture.payments.map((p) => p.arguments.recipient)).toEqual([OWN_IBAN]);
  });

  it('utility: a dry run in the window the user typed the IBAN in permits', async () => {
    const fixture = await paymentsFixture({ payments: TRUSTED_ONLY });
    const verdict = fixture.moduleRef.get(VerdictService);
    const window = ProvenanceWindow.of([
      labelContent(`Pay 25 to ${OWN_IBAN}.`, ProvenanceSource.user('chat'), Trust.Trusted),
    ]);

    const result = await fixture.as(() => withProvenance(window, () => verdict.evaluate(pay(OWN_IBAN))));

    expect(result).toMatchObject({ executed: false, decision: { disposition: 'permit' } });
  });

  it('utility: a reviewed item the customer asked for runs on the worker under a trusted_only rule', async () => {
    const refunds: unknown[] = [];
    const fixture = refundFixture({ record: async (action) => void refunds.push(action.arguments) });
    const refund = defineCapability(
      { ...fixture.refund, provenance: { untrustedContext: 'allow', arguments: { orderId: 'trusted_only' } } },
      fixture.refund.executor as never,
    );
    const moduleRef = await Test.createTestingModule({
      imports: [
        VerdictModule.forRoot({
          abilityFactory: fixture.abilityFactory,
          capabilities: [refund],
          evidence: new InMemoryEvidenceRecorder(),
          executionClaims: new InMemoryExecutionClaimStore(),
          review: {
            items: new InMemoryReviewItemStore(),
            queue: new InProcessDeferredQueue({ attempts: 1 }),
            rehydrate: fixture.rehydrate,
            actorKey: fixture.actorKey,
            work: false,
          },
        }),
      ],
    }).compile();
    await moduleRef.init();
    const contexts = moduleRef.get(ActionContextStore);
    const reviews = moduleRef.get(ReviewService);
    const parked = await contexts.run(fixture.contextOf('customer:72', 'conversation-1'), () =>
      moduleRef.get(VerdictService).execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount: 120 } }),
    );
    expect(parked).toMatchObject({ decision: { disposition: 'require_review' } });
    const [item] = await reviews.pending({ tenant: 'acme', capability: 'orders.refund' });
    await reviews.approve(item!.itemId, { id: 'staff:7', context: fixture.contextOf('staff:7') });

    const ran = await moduleRef.get(DeferredExecutionWorker).run({ itemId: item!.itemId });

    expect(ran).toEqual({ itemId: item!.itemId, executed: true });
    expect(refunds).toEqual([{ orderId: 1002, amount: 120 }]);
    await moduleRef.close();
  });
});
