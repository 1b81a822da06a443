import type { JsonObject, JsonValue } from '../fingerprints/json-value.js';
import type { ApproverProvenance } from '../provenance/approver-provenance.js';
import type { ReviewItemStatus } from './review-item-status.js';

/**
 * One parked operation (`requiresReview`, or `VerdictService.enqueue`): the exact validated proposal,
 * bound like an approval receipt (capability, execution-target policy, arguments, the policy's target
 * binding, actor and tenant — as one fingerprint), waiting for a reviewer or a worker.
 *
 * Everything a reviewer is shown (`reason`, `description`, `subject`) comes from the capability's
 * declaration and the trusted target, never from model-written text. `arguments` are kept so the
 * worker can re-run the exact proposal; they are never shown as prose and never written to evidence.
 */
export interface ReviewItem {
  /** `rvw_` + 256 random bits, base64url: the only handle a job carries. */
  readonly id: string;
  readonly capability: string;
  /** The validated arguments of the proposal, re-proposed by the worker. */
  readonly arguments: JsonValue;
  /** The tool-call id of the proposal, or the envelope id when it had none: one item per request. */
  readonly requestKey: string;
  /** `sha256(JCS({capability, execution_target_policy, arguments, binding, principal}))`. */
  readonly bindingFingerprint: string;
  /** `sha256(JCS({actor: actorKey(actor), tenant}))` of the requester: who may never review it. */
  readonly principalFingerprint: string;
  /** `actorKey(actor)` of the requester: what the application's `rehydrate` hook looks the actor up by. */
  readonly requesterKey: JsonValue;
  /**
   * The requester's actor as kill switches name it (`containedActorFingerprint`: sha256 of the module's `actorKey`,
   * which may differ from {@link requesterKey}): what an approval's requester switch is checked by, beside
   * `sha256(requesterKey)`. `null` when parked without `containment` configured or before the migration that keeps it;
   * a store must keep it as parked (the review item store contract checks it). Without it a reviewer's approval
   * checks `sha256(requesterKey)` alone (the worker's run is still refused at step 0).
   */
  readonly requesterActorFingerprint?: string | null;
  readonly tenant: string | null;
  /** `context.metadata.conversationId` of the request, `null` when it had none: where to tell the user. */
  readonly conversationId: string | number | null;
  /** `true`: waits for a reviewer (`requiresReview`); `false`: enqueued directly (`VerdictService.enqueue`). */
  readonly reviewed: boolean;
  readonly status: ReviewItemStatus;
  /** Why review is required (the policy's `reason`), for the reviewer. */
  readonly reason: string;
  /** The policy's `describe(envelope, target)`: trusted data only. `null` when it has none. */
  readonly description: string | null;
  /** Trusted facts of the bound target a reviewer's CASL ability is checked against (`reviewer.subject`). */
  readonly subject: JsonObject | null;
  /** Neither approved nor executed when `now >= expiresAt`. */
  readonly expiresAt: Date;
  /** The reviewer's opaque application id (`staff:7`), never PII; `null` until decided, or when enqueued directly. */
  readonly decidedBy: string | null;
  readonly decidedAt: Date | null;
  /** When the deferred run settled it (`executed` or `refused`). */
  readonly settledAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /**
   * What the reviewer is shown of the proposal's provenance (trusted data only: source labels, declared
   * argument paths, content fingerprints) when the provenance stage analysed it; `null` otherwise, or in a
   * store that does not keep it.
   */
  readonly provenance?: ApproverProvenance | null;
}
