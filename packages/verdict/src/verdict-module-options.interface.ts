import type { ExecutionContext } from '@nestjs/common';
import type { AbilityFactory } from './authorization/ability-factory.interface.js';
import type { CapabilityDefinition } from './capabilities/capability-definition.js';
import type { ActionContext } from './context/action-context.js';
import type { ApprovalEndpointHooks } from './approvals/approval-endpoint-hooks.interface.js';
import type { ApprovalReceiptStore } from './approvals/approval-receipt-store.interface.js';
import type { EvidenceRecorder } from './evidence/evidence-recorder.interface.js';
import type { EvidenceQuery } from './evidence/evidence-query.interface.js';
import type { EvidenceActorKey } from './evidence/actor-fingerprint.js';
import type { ExecutionClaimStore } from './execution-claims/execution-claim-store.interface.js';
import type { RateLimitStore } from './rate-limits/rate-limit-store.interface.js';
import type { TrajectoryStore } from './forbidden-states/trajectory-store.interface.js';
import type { ReleasePolicy } from './context-release/release-policy.js';
import type { PiiDetector } from './context-release/detectors/index.js';

/** The fixed text the model and end users receive when a proposal is not executed. */
export const DEFAULT_PUBLIC_MESSAGE = 'This action was not performed.';

/** Options of `VerdictModule.forRoot` / `forRootAsync`. */
export interface VerdictModuleOptions {
  /** Returns the actor's CASL ability for an action context. Required. */
  readonly abilityFactory: AbilityFactory;
  /** Where decision evidence goes. Default: `NullEvidenceRecorder` (records nothing, warns once). */
  readonly evidence?: EvidenceRecorder;
  /**
   * Reads evidence back (`EvidenceQuery`, `verdict evidence list|show`). Default: an `InMemoryEvidenceQuery`
   * when `evidence` is an `InMemoryEvidenceRecorder`; otherwise none, and using it is a `VerdictConfigurationError`
   * (with TypeORM evidence pass `new TypeOrmEvidenceQuery(dataSource)`).
   */
  readonly evidenceQuery?: EvidenceQuery;
  /**
   * Names the actor in every decision record's `actorFingerprint`: `sha256(JCS({actor: evidenceActorKey(actor), tenant}))`.
   * Default: the actor itself (then it equals a receipt's principal fingerprint). A key that names nobody or is not
   * plain JSON records `actorFingerprint: null` and warns once.
   * @example evidenceActorKey: (actor: User) => actor.id
   */
  readonly evidenceActorKey?: EvidenceActorKey;
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
  /** The clock used for envelopes, evidence, windows and claims. Default: `() => new Date()`. */
  readonly clock?: () => Date;
}
