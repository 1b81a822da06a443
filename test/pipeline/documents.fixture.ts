import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { z } from 'zod';
import {
  type ActionContext,
  type AuthorizedAction,
  Capability,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  type EvidenceRecorder,
  type VerdictModuleOptions,
  type CapabilityDefinition,
  type CapabilityOptions,
  TargetNotResolvable,
  VerdictModule,
  defineCapability,
  fromContext,
  fromProposal,
} from '@verdict/nestjs';

/** A tiny domain for pipeline tests: documents owned by actors within tenants. */
export class Document {
  constructor(
    readonly id: number,
    readonly tenant: string,
    public owner: string,
    public title: string,
  ) {}
}

export interface Actor {
  readonly id: string;
}

export function documentsFixture() {
  const documents = new Map<number, Document>([
    [1, new Document(1, 'acme', 'alice', 'alice plan')],
    [2, new Document(2, 'acme', 'bob', 'bob plan')],
    [3, new Document(3, 'globex', 'alice', 'globex plan')],
  ]);
  /** Actors who lost their rights since the proposal (an authority change). */
  const revoked = new Set<string>();
  const executions: AuthorizedAction<any, Document>[] = [];
  /** Hooks a test sets to misbehave between proposal and execution. */
  const hooks: { onRefresh?: (doc: Document) => Document | void; onResolve?: () => void; resolveAs?: () => unknown } =
    {};

  const abilityFactory = {
    createForContext(context: ActionContext) {
      const actor = context.actor as Actor;
      const { can, cannot, build } = new AbilityBuilder(createMongoAbility);
      if (!revoked.has(actor.id)) {
        can('read', 'Document', { owner: actor.id, tenant: context.tenant });
        can('rename', 'Document', ['title'], { owner: actor.id, tenant: context.tenant });
        cannot('rename', 'Document', { title: { $regex: '^locked' } }).because('locked documents keep their title');
        cannot('rename', 'Document', ['title'], { title: { $regex: '^frozen' } }).because('frozen titles stay');
      }
      return build();
    },
  };

  const load = (tenant: string | null, id: number) => {
    const doc = documents.get(id);
    return doc !== undefined && doc.tenant === tenant ? doc : TargetNotResolvable.throw('document not found');
  };
  const identity = (doc: Document) => ({ tenant: doc.tenant, type: 'document', id: doc.id });
  const refreshPolicy = ExecutionTargetPolicy.refresh<Document>({
    name: 'document-by-id',
    identity,
    refresh: (doc, context) => {
      const replaced = hooks.onRefresh?.(doc);
      if (replaced !== undefined) return replaced;
      // A second read: a fresh object, as a database would return, never the resolver's instance.
      const current = load(context.tenant, doc.id);
      return new Document(current.id, current.tenant, current.owner, current.title);
    },
  });

  @Injectable()
  class DocumentCapabilities {
    @Capability({
      name: 'documents.read',
      description: 'Read a document',
      action: 'read',
      subject: 'Document',
      arguments: z.object({ id: z.number().int() }),
      resolveTarget: fromProposal(({ arguments: args, context }) => {
        hooks.onResolve?.();
        return (hooks.resolveAs?.() as Document | undefined) ?? load(context.tenant, (args as { id: number }).id);
      }),
      executionTarget: refreshPolicy,
    })
    read(action: AuthorizedAction<{ id: number }, Document>) {
      executions.push(action);
      return { id: action.target.id, title: action.target.title };
    }

    @Capability({
      name: 'documents.rename',
      description: 'Rename a document',
      action: 'rename',
      subject: 'Document',
      arguments: z.object({ id: z.number().int(), title: z.string().min(1), owner: z.string().optional() }),
      resolveTarget: fromProposal(({ arguments: args, context }) => load(context.tenant, (args as { id: number }).id)),
      executionTarget: refreshPolicy,
      authorizeFields: ['title', 'owner'],
    })
    rename(action: AuthorizedAction<{ id: number; title: string }, Document>) {
      executions.push(action);
      action.target.title = action.arguments.title;
      return { id: action.target.id, title: action.target.title };
    }

    @Capability({
      name: 'documents.latest',
      description: "Read the actor's first document",
      action: 'read',
      subject: 'Document',
      arguments: z.object({}),
      resolveTarget: fromContext((context) => {
        const mine = [...documents.values()].find(
          (doc) => doc.owner === (context.actor as Actor).id && doc.tenant === context.tenant,
        );
        return mine ?? TargetNotResolvable.throw('no document');
      }),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<Document>({ name: 'document-snapshot', identity }),
    })
    latest(action: AuthorizedAction<object, Document>) {
      executions.push(action);
      return action.target.title;
    }
  }

  async function boot(
    options: { evidence?: EvidenceRecorder; providers?: any[]; imports?: any[] } & Pick<
      VerdictModuleOptions,
      | 'capabilities'
      | 'executionClaims'
      | 'rateLimits'
      | 'budgets'
      | 'callCeilings'
      | 'modelBudgets'
      | 'approvals'
      | 'trajectories'
      | 'clock'
      | 'containment'
      | 'actorKey'
      | 'tenantOf'
      | 'toolLoopThreshold'
      | 'evidenceQuery'
      | 'evidenceLevel'
      | 'provenance'
      | 'releasePolicies'
      | 'quarantine'
    > = {},
  ) {
    const { evidence = new InMemoryEvidenceRecorder(), providers = [], imports = [], ...verdictOptions } = options;
    @Module({ providers: [DocumentCapabilities, ...providers] })
    class DocumentsModule {}
    const moduleRef = await Test.createTestingModule({
      imports: [
        VerdictModule.forRoot({ abilityFactory, evidence, publicMessage: 'Not done.', ...verdictOptions }),
        DocumentsModule,
        ...imports,
      ],
    }).compile();
    await moduleRef.init();
    return { moduleRef, evidence };
  }

  /**
   * A capability of the test's own over one document by `id` (read again before it runs), CASL `read` on `Document`
   * unless `declared` says otherwise; `declared` adds any other option (a confirmation, a claim, a budget).
   */
  const documentCapability = <R>(
    declared: Pick<CapabilityOptions<{ id: number }, Document>, 'name' | 'description'> &
      Partial<Omit<CapabilityOptions<{ id: number }, Document>, 'arguments' | 'resolveTarget' | 'executionTarget'>>,
    executor: (action: AuthorizedAction<{ id: number }, Document>) => R,
  ): CapabilityDefinition =>
    defineCapability(
      {
        action: 'read',
        subject: 'Document',
        ...declared,
        arguments: z.object({ id: z.number().int() }),
        resolveTarget: fromProposal<{ id: number }, Document>(({ arguments: args, context }) =>
          load(context.tenant, args.id),
        ),
        executionTarget: refreshPolicy,
      },
      executor,
    );

  return {
    documents,
    revoked,
    executions,
    hooks,
    abilityFactory,
    boot,
    DocumentCapabilities,
    load,
    refreshPolicy,
    documentCapability,
  };
}

export const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme' };
export const bob: ActionContext = { actor: { id: 'bob' }, tenant: 'acme' };
