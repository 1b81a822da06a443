import type { RecordedDisposition } from '../decisions/shadow-disposition.js';
import type { Stage } from '../decisions/stage.js';
import type { ToolKind } from './tool-kind.js';
import { DEFAULT_EVIDENCE_STREAM } from './evidence-stream.js';
import { storableReason } from './storable-reason.js';

/**
 * One decision, as evidence (docs/architecture.md, "Evidence"). Only fingerprints and facts: never raw arguments,
 * payloads, tool-call ids, receipt ids or target identities. The internal `reason` is kept here and
 * nowhere the model can read it; it may still be sensitive application metadata.
 */
export interface DecisionRecord {
  readonly id: string;
  /** The envelope id: every record of one proposal shares it. */
  readonly correlationId: string;
  /** This record's position in its correlation trail, from 0: stages of one proposal in pipeline order. */
  readonly sequence: number;
  /**
   * The hash chain the record joins (docs/evidence.md, "Chain"): `tenant:<sha256 of the tenant id>`, or
   * `default` without a tenant. Its chain position is the storage's (`ChainLink`), not part of the record.
   */
  readonly stream: string;
  readonly capability: string;
  readonly toolKind: ToolKind;
  readonly stage: Stage;
  /** The decision's disposition; `would_deny` / `would_confirm` for a refusal shadow mode did not enforce (docs/shadow-mode.md). */
  readonly disposition: RecordedDisposition;
  /**
   * The decision's internal reason, storable on every engine (`storableReason`): U+0000 and lone surrogates as U+FFFD,
   * cut to 4,096 characters (the last `…`) when longer.
   */
  readonly reason: string;
  readonly argumentsFingerprint: string | null;
  readonly toolCallFingerprint: string | null;
  /**
   * `actorFingerprint(context)` of who proposed: sha256 of the module's `actorKey` of the actor (a string key as it
   * is, any other as canonical JSON), as security events and containment carry it; `null` on records no actor's
   * proposal made (operators, approvers) and where the key names nobody.
   */
  readonly actorFingerprint: string | null;
  readonly targetPolicy: string | null;
  readonly targetStrategy: string | null;
  readonly proposalIdentityFingerprint: string | null;
  readonly executionIdentityFingerprint: string | null;
  readonly identityMatch: boolean | null;
  readonly approvalPhase: string | null;
  readonly approvalOutcome: string | null;
  readonly receiptFingerprint: string | null;
  readonly rateLimitKeyFingerprint: string | null;
  readonly rateLimitLimit: number | null;
  readonly rateLimitRemaining: number | null;
  readonly rateLimitResetAt: Date | null;
  readonly claimFingerprint: string | null;
  readonly claimStatus: string | null;
  readonly claimAttempt: number | null;
  /** UTC. */
  readonly recordedAt: Date;
}

/** The optional facts of a record; stages fill the ones they know. */
export type DecisionFacts = Partial<
  Omit<
    DecisionRecord,
    | 'id'
    | 'correlationId'
    | 'sequence'
    | 'stream'
    | 'capability'
    | 'toolKind'
    | 'stage'
    | 'disposition'
    | 'reason'
    | 'recordedAt'
  >
>;

/**
 * Completes a record: every fact a stage did not produce is `null`, the stream is `default` unless given, and the
 * reason is made storable on every engine (`storableReason`): every recorder stores and hashes the same text. One
 * literal shape keeps it cheap on the hot path.
 */
export function decisionRecord(
  head: Pick<
    DecisionRecord,
    'id' | 'correlationId' | 'sequence' | 'capability' | 'toolKind' | 'stage' | 'disposition' | 'reason' | 'recordedAt'
  > & { readonly stream?: string },
  facts: DecisionFacts,
): DecisionRecord {
  return {
    id: head.id,
    correlationId: head.correlationId,
    sequence: head.sequence,
    stream: head.stream ?? DEFAULT_EVIDENCE_STREAM,
    capability: head.capability,
    toolKind: head.toolKind,
    stage: head.stage,
    disposition: head.disposition,
    reason: storableReason(head.reason),
    argumentsFingerprint: facts.argumentsFingerprint ?? null,
    toolCallFingerprint: facts.toolCallFingerprint ?? null,
    actorFingerprint: facts.actorFingerprint ?? null,
    targetPolicy: facts.targetPolicy ?? null,
    targetStrategy: facts.targetStrategy ?? null,
    proposalIdentityFingerprint: facts.proposalIdentityFingerprint ?? null,
    executionIdentityFingerprint: facts.executionIdentityFingerprint ?? null,
    identityMatch: facts.identityMatch ?? null,
    approvalPhase: facts.approvalPhase ?? null,
    approvalOutcome: facts.approvalOutcome ?? null,
    receiptFingerprint: facts.receiptFingerprint ?? null,
    rateLimitKeyFingerprint: facts.rateLimitKeyFingerprint ?? null,
    rateLimitLimit: facts.rateLimitLimit ?? null,
    rateLimitRemaining: facts.rateLimitRemaining ?? null,
    rateLimitResetAt: facts.rateLimitResetAt ?? null,
    claimFingerprint: facts.claimFingerprint ?? null,
    claimStatus: facts.claimStatus ?? null,
    claimAttempt: facts.claimAttempt ?? null,
    recordedAt: head.recordedAt,
  };
}
