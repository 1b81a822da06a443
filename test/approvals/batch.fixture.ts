import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { Test } from '@nestjs/testing';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { z } from 'zod';
import {
  ApprovalArgumentsChanged,
  type ActionContext,
  ActionContextStore,
  ApprovalBatchService,
  ApprovalService,
  type ApprovalReceiptStore,
  type Approver,
  CapabilityDenied,
  type ProvenancePolicy,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  TargetNotResolvable,
  VerdictModule,
  VerdictService,
  type VerdictModuleOptions,
  defineCapability,
  fromProposal,
  requiresConfirmation,
} from '@verdict/nestjs';
import { ApprovalBatches, VerdictLangChainModule, VerdictTools } from '@verdict/nestjs/langchain';

interface Doc {
  readonly id: number;
  readonly tenant: string;
  readonly owner: string;
}

export const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: { conversationId: 'c-1' } };
export const bob: ActionContext = { actor: { id: 'bob' }, tenant: 'acme', metadata: { conversationId: 'c-1' } };
const staff = (id: string, tenant = 'acme', role?: string): Approver => ({
  id: `staff:${id}`,
  context: { actor: { id, role }, tenant },
});
/** May approve any call of the acme tenant. */
export const support = staff('sam', 'acme', 'support');
/** An approver of acme without the right to approve. */
export const intern = staff('ivy');
/** A support approver of another tenant. */
export const otherSupport = staff('oz', 'globex', 'support');

/**
 * `documents.archive` (requires confirmation; the approver sees owner and tenant) over documents 1–5 of alice and 9 of
 * bob in tenant acme, with a receipt store of the test's choice; the actor may archive only their own documents.
 * `options`: kill switches, the actor key and the provenance options (a content store), for the tests that need them;
 * `provenance`: the capability's provenance policy, for those that propose in a window (its texts kept for the approver).
 */
export async function batchFixture(
  approvals: ApprovalReceiptStore,
  options: Pick<VerdictModuleOptions, 'containment' | 'actorKey' | 'provenance'> = {},
  provenance?: ProvenancePolicy<{ id: number }, ActionContext, Doc>,
) {
  const documents = new Map<number, Doc>([1, 2, 3, 4, 5].map((id) => [id, { id, tenant: 'acme', owner: 'alice' }]));
  documents.set(9, { id: 9, tenant: 'acme', owner: 'bob' });
  const archived: number[] = [];
  const load = (tenant: string | null, id: number) => {
    const doc = documents.get(id);
    return doc !== undefined && doc.tenant === tenant ? doc : TargetNotResolvable.throw('no such document');
  };
  const archive = defineCapability(
    {
      name: 'documents.archive',
      description: 'Archive a document',
      action: 'archive',
      subject: 'Document',
      arguments: z.object({ id: z.number().int() }),
      resolveTarget: fromProposal<{ id: number }, Doc>(({ arguments: args, context }) => load(context.tenant, args.id)),
      executionTarget: ExecutionTargetPolicy.refresh<Doc>({
        name: 'doc-by-id',
        identity: (doc) => ({ tenant: doc.tenant, id: doc.id }),
        refresh: (doc, context) => ({ ...load(context.tenant, doc.id) }),
      }),
      requiresConfirmation: requiresConfirmation<{ id: number }, Doc>({
        bind: (_envelope, doc) => ({ doc: doc.id }),
        reason: 'Archiving hides the document.',
        maxPending: 1000, // the stores are shared by every test of an engine
        describe: (_envelope, doc) => `Archive document ${doc.id}`,
        subject: (_envelope, doc) => ({ owner: doc.owner, tenant: doc.tenant }),
      }),
      ...(provenance === undefined ? {} : { provenance }),
    },
    (action) => {
      archived.push(action.target.id);
      return `archived ${action.target.id}`;
    },
  );
  const abilityFactory = {
    createForContext(context: ActionContext) {
      const actor = context.actor as { id: string; role?: string };
      const { can, build } = new AbilityBuilder(createMongoAbility);
      can('archive', 'Document', { owner: actor.id, tenant: context.tenant });
      if (actor.role === 'support') can('approve', 'Approval', { tenant: context.tenant });
      return build();
    },
  };
  const evidence = new InMemoryEvidenceRecorder();
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory,
        evidence,
        publicMessage: 'Not done.',
        capabilities: [archive],
        approvals,
        ...options,
      }),
      VerdictLangChainModule,
      EventEmitterModule.forRoot(),
    ],
  }).compile();
  await moduleRef.init();
  /** Every `ApprovalArgumentsChanged` security event raised. */
  const argumentsChanged: ApprovalArgumentsChanged[] = [];
  moduleRef
    .get(EventEmitter2)
    .on(ApprovalArgumentsChanged.event, (event: ApprovalArgumentsChanged) => argumentsChanged.push(event));
  /** Every `CapabilityDenied` security event raised. */
  const denied: CapabilityDenied[] = [];
  moduleRef.get(EventEmitter2).on(CapabilityDenied.event, (event: CapabilityDenied) => denied.push(event));
  const contexts = moduleRef.get(ActionContextStore);
  const verdict = moduleRef.get(VerdictService);
  return {
    moduleRef,
    archived,
    evidence,
    argumentsChanged,
    denied,
    batches: moduleRef.get(ApprovalBatchService),
    approvals: moduleRef.get(ApprovalService),
    middleware: () => moduleRef.get(ApprovalBatches).middleware(),
    tools: moduleRef.get(VerdictTools),
    as: <T>(context: ActionContext, fn: () => Promise<T>) => contexts.run(context, fn),
    /** Proposes `documents.archive` as alice, in `batch` when given. */
    propose: (toolCallId: string, id: number, options: { approvalBatch?: string; explicitApproval?: boolean } = {}) =>
      contexts.run(alice, () =>
        verdict.execute({ capability: 'documents.archive', arguments: { id }, toolCallId }, options),
      ),
    close: () => moduleRef.close(),
  };
}
