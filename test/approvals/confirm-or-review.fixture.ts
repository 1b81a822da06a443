import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  type ActionContext,
  type ApprovalReceiptStore,
  type CapabilityDefinition,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  type ReviewItemStore,
  VerdictModule,
} from '@verdict/nestjs';
import { TypeOrmApprovalReceiptStore, TypeOrmReviewItemStore } from '@verdict/nestjs/typeorm';
import { storeBackends } from '@verdict/testing-kit';

/** The receipt and review item stores an app parks on, on one engine. */
export type ParkingStores = { receipts(): ApprovalReceiptStore; items(): ReviewItemStore; close(): Promise<void> };

/** Every engine to park on, as `describe.each` rows: memory, and TypeORM on each engine of the database matrix. */
export const parkingStoreBackends = () =>
  storeBackends<Omit<ParkingStores, 'close'>>(
    () => ({ receipts: () => new InMemoryApprovalReceiptStore(), items: () => new InMemoryReviewItemStore() }),
    (dataSource) => ({
      receipts: () => new TypeOrmApprovalReceiptStore(dataSource),
      items: () => new TypeOrmReviewItemStore(dataSource),
    }),
  );

/** Whether the app's one capability asks for confirmation (a receipt) or for review (the review lane). */
export type ParkingMode = 'confirm' | 'review';

export interface ConfirmOrReviewSetup {
  /** The app's one capability, with `requiresConfirmation` or `requiresReview` as the mode says. */
  readonly capability: CapabilityDefinition;
  /** The CASL rules of each actor: `can` of their ability builder, and their action context. */
  readonly abilities: (
    can: AbilityBuilder<ReturnType<typeof createMongoAbility>>['can'],
    context: ActionContext,
  ) => void;
  /** The review lane's `rehydrate` (review mode). */
  readonly rehydrate: () => ActionContext;
  /** `false` for a web-only review lane that works no job. Default: the lane works the queue. */
  readonly work?: false;
}

/**
 * A Verdict app of one capability that parks its calls — on `stores`' receipts (`confirm`), or on `stores`' review
 * items, an in-process queue and in-memory execution claims (`review`) — with in-memory evidence and the actor's `id`
 * as `actorKey` (of the module, and of the review lane). Initialised: the caller closes `moduleRef`.
 */
export async function confirmOrReviewApp(
  stores: ParkingStores,
  mode: ParkingMode,
  setup: ConfirmOrReviewSetup,
): Promise<{ moduleRef: TestingModule; evidence: InMemoryEvidenceRecorder }> {
  const abilityFactory = {
    createForContext(context: ActionContext) {
      const { can, build } = new AbilityBuilder(createMongoAbility);
      setup.abilities(can, context);
      return build();
    },
  };
  const evidence = new InMemoryEvidenceRecorder();
  const actorKey = (actor: { id: string }) => actor.id;
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory,
        evidence,
        capabilities: [setup.capability],
        actorKey,
        ...(mode === 'confirm'
          ? { approvals: stores.receipts() }
          : {
              executionClaims: new InMemoryExecutionClaimStore(),
              review: {
                items: stores.items(),
                queue: new InProcessDeferredQueue({ attempts: 1 }),
                rehydrate: setup.rehydrate,
                actorKey,
                ...(setup.work === false ? { work: false as const } : {}),
              },
            }),
      }),
    ],
  }).compile();
  await moduleRef.init();
  return { moduleRef, evidence };
}
