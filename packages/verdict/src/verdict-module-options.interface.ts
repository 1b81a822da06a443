import type { ExecutionContext } from '@nestjs/common';
import type { AbilityFactory } from './authorization/ability-factory.interface.js';
import type { CapabilityDefinition } from './capabilities/capability-definition.js';
import type { ActionContext } from './context/action-context.js';
import type { ApprovalEndpointHooks } from './approvals/approval-endpoint-hooks.interface.js';
import type { ApprovalReceiptStore } from './approvals/approval-receipt-store.interface.js';
import type { EvidenceRecorder } from './evidence/evidence-recorder.interface.js';
import type { EvidenceQuery } from './evidence/evidence-query.interface.js';
import type { ExecutionClaimStore } from './execution-claims/execution-claim-store.interface.js';
import type { RateLimitStore } from './rate-limits/rate-limit-store.interface.js';
import type { TrajectoryStore } from './forbidden-states/trajectory-store.interface.js';
import type { ReleasePolicy } from './context-release/release-policy.js';
import type { PiiDetector } from './context-release/detectors/index.js';
import type { ContainmentOptions } from './containment/containment-options.interface.js';
import type { EvidenceLevel } from './evidence/evidence-level.js';
import type { ProvenanceOptions } from './provenance/provenance-policy.js';
import type { ReviewLaneOptions } from './review/review-lane-options.interface.js';
import type { ReviewEndpointHooks } from './review/review-endpoint-hooks.interface.js';
import type { VerdictActor } from './context/verdict-types.js';
import type { JsonValue } from './fingerprints/json-value.js';

/** The fixed text the model and end users receive when a proposal is not executed. */
export const DEFAULT_PUBLIC_MESSAGE = 'This action was not performed.';

/** Options of `VerdictModule.forRoot` / `forRootAsync`. */
export interface VerdictModuleOptions {
  /** Returns the actor's CASL ability for an action context. Required. */
  readonly abilityFactory: AbilityFactory;
  /** Where decision evidence goes. Default: `NullEvidenceRecorder` (records nothing, warns once). */
  readonly evidence?: EvidenceRecorder;
  /**
   * How much of each run's evidence is written: `standard` (one record per stage) or `minimal` (at most two records
   * per run, the latest before its first mutating step and its final decision, each with every fact the run
   * established). Default: `standard`.
   */
  readonly evidenceLevel?: EvidenceLevel;
  /**
   * Reads evidence back (`EvidenceQuery`, `verdict evidence list|show`). Default: an `InMemoryEvidenceQuery`
   * when `evidence` is an `InMemoryEvidenceRecorder`; otherwise none, and using it is a `VerdictConfigurationError`
   * (with TypeORM evidence pass `new TypeOrmEvidenceQuery(dataSource)`).
   */
  readonly evidenceQuery?: EvidenceQuery;
  /** What the model is told when a proposal is not executed. Default: {@link DEFAULT_PUBLIC_MESSAGE}. Internal reasons never reach the model. */
  readonly publicMessage?: string;
  /**
   * Builds the action context from an HTTP (or RPC) request for `ActionContextInterceptor`, after guards
   * have authenticated it. Never read the actor or tenant from the request body.
   */
  readonly resolveContext?: (executionContext: ExecutionContext) => ActionContext | Promise<ActionContext>;
  /** Capabilities built with `defineCapability`, registered next to discovered `@Capability` methods. */
  readonly capabilities?: readonly CapabilityDefinition[];
  /** Where approval receipts live. Required when any capability uses `requiresConfirmation` (checked at boot). */
  readonly approvals?: ApprovalReceiptStore;
  /** The application's hooks for `@ApprovalEndpoint()` routes. */
  readonly approvalEndpoint?: ApprovalEndpointHooks;
  /**
   * The review lane and deferred execution (docs/review-lane.md): review items, the queue, and how a worker
   * rehydrates the requester. Required when any capability uses `requiresReview` (checked at boot), and for
   * `VerdictService.enqueue`.
   */
  readonly review?: ReviewLaneOptions;
  /** The application's hooks for `@ReviewEndpoint()` routes. */
  readonly reviewEndpoint?: ReviewEndpointHooks;
  /** Where execution claims live. Required when any capability uses `atMostOnce` (checked at boot). */
  readonly executionClaims?: ExecutionClaimStore;
  /** Where rate-limit windows live. Required when any capability uses `rateLimit` (checked at boot). */
  readonly rateLimits?: RateLimitStore;
  /** Where conversations' folded trajectory states live. Required when any capability uses `forbidStates` (checked at boot). */
  readonly trajectories?: TrajectoryStore;
  /** Context release routes, one per source → destination (a duplicate route is a boot error). Also declared by `@ReleasePolicies()` providers. */
  readonly releasePolicies?: readonly ReleasePolicy[];
  /** Detectors for free-text scanning and post-scrub validation of routes that name none. Default: `DEFAULT_DETECTORS`. */
  readonly detectors?: readonly PiiDetector[];
  /**
   * Kill switches per capability, actor and tenant, checked before anything else (docs/containment.md).
   * Default: none (nothing is ever contained).
   *
   * @example containment: { store: new TypeOrmContainmentStore(dataSource), cacheTtlMs: 2_000 }
   */
  readonly containment?: ContainmentOptions;
  /**
   * The tenant a resolved target belongs to, for `CrossTenantResourceRequested` (ADR 0024): when CASL
   * denies a target whose tenant differs from the action context's, the deny raises that event. It
   * never permits or denies anything itself. Default: none (the event is never raised).
   *
   * @example tenantOf: (target) => (target instanceof Order ? target.tenantId : undefined)
   */
  readonly tenantOf?: (target: unknown, capability: string) => string | null | undefined;
  /** How many identical proposals in one conversation raise `ToolLoopDetected` (at 3, 6, …). Default: 3. */
  readonly toolLoopThreshold?: number;
  /**
   * Provenance (docs/provenance.md): `strict` makes confirmation the default for consequential capabilities
   * under untrusted influence; `ledger` keeps labels, fingerprints and derivation edges. Default: not strict, no ledger.
   */
  readonly provenance?: ProvenanceOptions;
  /**
   * The actor's stable identity, used by every capability that does not give its own: receipts
   * (`requiresConfirmation`'s `actorKey`), review items (`requiresReview`'s), actor trajectories
   * (`TrajectoryScope.actor()` without a key), containment (`verdict contain actor <key>` names a string key as
   * it is, any other as its canonical JSON) and the actor fingerprint of evidence and security events.
   * Default: none; the actor object itself is then the key, and `TrajectoryScope.actor()` needs this (boot error).
   * A method signature, so an annotated `(actor: User) => …` fits where no actor type is registered.
   *
   * @example actorKey: (actor: User) => actor.id
   */
  actorKey?(actor: VerdictActor): JsonValue;
  /** The clock used for envelopes, evidence, windows and claims. Default: `() => new Date()`. */
  readonly clock?: () => Date;
}
