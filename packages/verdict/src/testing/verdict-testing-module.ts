import type { DynamicModule, ForwardReference, Provider, Type } from '@nestjs/common';
import type { TestingModule, TestingModuleBuilder } from '@nestjs/testing';
import { ApprovalService } from '../approvals/approval.service.js';
import { InMemoryApprovalReceiptStore } from '../approvals/in-memory-approval-receipt-store.js';
import type { ActionContext } from '../context/action-context.js';
import { ActionContextStore } from '../context/action-context.store.js';
import { InMemoryEvidenceRecorder } from '../evidence/in-memory-evidence-recorder.js';
import { InMemoryExecutionClaimStore } from '../execution-claims/in-memory-execution-claim-store.js';
import { InMemoryTrajectoryStore } from '../forbidden-states/in-memory-trajectory-store.js';
import type { ExecutionResult } from '../vocabulary/execution-result.js';
import type { InvocationOptions } from '../pipeline/pipeline-run.js';
import type { Proposal } from '../vocabulary/proposal.js';
import { InMemoryRateLimitStore } from '../rate-limits/in-memory-rate-limit-store.js';
import { InMemoryBudgetStore } from '../budgets/in-memory-budget-store.js';
import type { VerdictModuleOptions } from '../verdict-module-options.interface.js';
import { VerdictModule } from '../verdict.module.js';
import { VerdictService } from '../verdict.service.js';
import { InMemoryProvenanceLedger } from '../provenance/in-memory-provenance-ledger.js';

/** What a Nest module's `imports` accepts. */
type ModuleImport = Type<unknown> | DynamicModule | Promise<DynamicModule> | ForwardReference;

/**
 * Options of {@link createVerdictTestingModule}: every `VerdictModule` option but the stores and the
 * evidence recorder (the testing module brings in-memory ones), plus the providers and imports of the code
 * under test.
 *
 * @example
 * const options: VerdictTestingModuleOptions = { abilityFactory, providers: [OrderCapabilities, OrderRepository] };
 */
export interface VerdictTestingModuleOptions extends Omit<
  VerdictModuleOptions,
  'evidence' | 'approvals' | 'executionClaims' | 'rateLimits' | 'budgets' | 'trajectories'
> {
  /** Providers of the application under test: `@Capability` hosts and what they inject. */
  readonly providers?: readonly Provider[];
  /** Modules to import next to `VerdictModule`, e.g. `VerdictLangChainModule` for `VerdictTools`. */
  readonly imports?: readonly ModuleImport[];
  /** Adjusts the builder before it compiles, e.g. `(builder) => builder.overrideProvider(Mailer).useValue(fakeMailer)`. */
  readonly configure?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
}

/**
 * The in-memory store of every gate, as the testing module wired them.
 *
 * @example
 * const { approvals } = verdict.stores;
 * expect(await approvals.find(challenge.receiptId)).toMatchObject({ status: 'pending' });
 */
export interface VerdictTestingStores {
  readonly approvals: InMemoryApprovalReceiptStore;
  readonly executionClaims: InMemoryExecutionClaimStore;
  readonly rateLimits: InMemoryRateLimitStore;
  readonly budgets: InMemoryBudgetStore;
  readonly trajectories: InMemoryTrajectoryStore;
  /** The provenance ledger (`provenance.ledger`): labels, derivation edges and influences. */
  readonly provenance: InMemoryProvenanceLedger;
}

/**
 * The pipeline bound to one actor: every call runs inside `ActionContextStore.run(context, …)`, as a
 * request through `ActionContextInterceptor` or an agent run inside `contexts.run` would.
 *
 * @example
 * const asAlice = verdict.as({ actor: { id: 'alice' }, tenant: 'acme' });
 * const result = await asAlice.execute({ capability: 'documents.rename', arguments: { id: 1, title: 'new' } });
 */
export interface ActingAs {
  /**
   * `VerdictService.execute` as this actor: decides and, on permit, runs the executor once. Rejects with
   * `MissingActionContextError`, executing nothing, when the context has no actor (or a blank one, or a bad tenant).
   */
  execute<TOutput = unknown>(proposal: Proposal, options?: InvocationOptions): Promise<ExecutionResult<TOutput>>;
  /** `VerdictService.evaluate` as this actor: decides without executing. Rejects as `execute` does for a bad context. */
  evaluate(proposal: Proposal): Promise<ExecutionResult<never>>;
  /** Runs `fn` (an agent's `invoke`, a tool's `invoke`) with this actor's context bound. */
  run<T>(fn: () => T): T;
}

/**
 * A compiled and initialised Nest testing module with Verdict on in-memory stores, and the services a
 * test reaches for.
 *
 * @example
 * const verdict = await createVerdictTestingModule({ abilityFactory, providers: [DocumentCapabilities] });
 * const result = await verdict.as(alice).execute({ capability: 'documents.read', arguments: { id: 1 } });
 * expect(verdict.evidence.decisions().at(-1)).toMatchObject({ capability: 'documents.read', disposition: 'permit' });
 * await verdict.close();
 */
export interface VerdictTestingModule {
  /** The Nest testing module itself: `get` a provider, or `createNestApplication()` for HTTP tests. */
  readonly moduleRef: TestingModule;
  /** Where every decision and release record of the module goes. */
  readonly evidence: InMemoryEvidenceRecorder;
  /** The in-memory store of every gate. */
  readonly stores: VerdictTestingStores;
  readonly verdict: VerdictService;
  readonly approvals: ApprovalService;
  readonly contexts: ActionContextStore;
  /** The pipeline as `context`'s actor. */
  as(context: ActionContext): ActingAs;
  /** Closes the module (its `onModuleDestroy` hooks run). */
  close(): Promise<void>;
}

/**
 * Compiles and initialises a Nest testing module with `VerdictModule.forRoot` on in-memory stores for
 * every gate (approvals, execution claims, rate limits, trajectories), an `InMemoryProvenanceLedger` and an
 * `InMemoryEvidenceRecorder`,
 * next to the given providers and imports. Boot-time checks run as in the application: a capability
 * whose policy is misconfigured fails here. `@nestjs/testing` is loaded only when this is called.
 *
 * @throws Error naming `@nestjs/testing` when it is not installed; any boot error of the module.
 * @example
 * const verdict = await createVerdictTestingModule({
 *   abilityFactory: { createForContext: (context) => abilityFor(context.actor) },
 *   providers: [OrderCapabilities],
 * });
 * const denied = await verdict.as(bob).execute({ capability: 'orders.cancel', arguments: { orderId: 1002 } });
 * expect(denied.executed).toBe(false);
 * await verdict.close();
 */
export async function createVerdictTestingModule(options: VerdictTestingModuleOptions): Promise<VerdictTestingModule> {
  const { providers = [], imports = [], configure = (builder) => builder, ...verdictOptions } = options;
  const { Test } = await loadNestTesting();
  const evidence = new InMemoryEvidenceRecorder();
  const stores: VerdictTestingStores = {
    approvals: new InMemoryApprovalReceiptStore(),
    executionClaims: new InMemoryExecutionClaimStore(),
    rateLimits: new InMemoryRateLimitStore(),
    budgets: new InMemoryBudgetStore(),
    trajectories: new InMemoryTrajectoryStore(),
    provenance: new InMemoryProvenanceLedger(),
  };
  const builder = Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        ...verdictOptions,
        evidence,
        approvals: stores.approvals,
        executionClaims: stores.executionClaims,
        rateLimits: stores.rateLimits,
        budgets: stores.budgets,
        trajectories: stores.trajectories,
        provenance: { ...verdictOptions.provenance, ledger: stores.provenance },
      }),
      ...imports,
    ],
    providers: [...providers],
  });
  const moduleRef = await configure(builder).compile();
  try {
    await moduleRef.init();
  } catch (error) {
    await moduleRef.close();
    throw error;
  }
  const verdict = moduleRef.get(VerdictService);
  const contexts = moduleRef.get(ActionContextStore);
  return {
    moduleRef,
    evidence,
    stores,
    verdict,
    approvals: moduleRef.get(ApprovalService),
    contexts,
    as: (context) => ({
      // async: a bad context is a rejected promise, as the types say, not a synchronous throw.
      execute: async (proposal, invocation) => contexts.run(context, () => verdict.execute(proposal, invocation)),
      evaluate: async (proposal) => contexts.run(context, () => verdict.evaluate(proposal)),
      run: (fn) => contexts.run(context, fn),
    }),
    close: () => moduleRef.close(),
  };
}

async function loadNestTesting(): Promise<typeof import('@nestjs/testing')> {
  try {
    return await import('@nestjs/testing');
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new Error('createVerdictTestingModule needs @nestjs/testing: npm install --save-dev @nestjs/testing', {
      cause: error,
    });
  }
}
