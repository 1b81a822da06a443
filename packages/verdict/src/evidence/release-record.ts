import type { DataClass } from '../context-release/data-class.js';
import type { SourceKind } from '../context-release/source.js';
import type { Trust } from '../context-release/trust.js';
import type { Disposition } from '../decisions/disposition.js';
import { DEFAULT_EVIDENCE_STREAM } from './evidence-stream.js';
import { storableReason } from './storable-reason.js';

/** A release is either let through or not. */
export type ReleaseDisposition = typeof Disposition.Permit | typeof Disposition.Deny;

/**
 * One context release, as evidence (docs/context-release.md). The route's names (source kind and name,
 * destination connection and trust zone) are application-chosen identifiers and are stored in clear;
 * everything about the payload is a fingerprint or a count, never a value. Path lists are fingerprinted
 * sorted (`sha256(JCS([...paths].sort()))`), transform names in the order they ran. On a denial the
 * released, transformed and payload facts are those of the empty release: nothing left.
 */
export interface ReleaseRecord {
  readonly id: string;
  /** The caller's correlation id (`correlate()`), or a fresh one per release. */
  readonly correlationId: string;
  /** The hash chain the record joins (docs/evidence.md, "Chain"); `default` unless the releaser was given one. */
  readonly stream: string;
  readonly sourceKind: SourceKind;
  readonly sourceName: string;
  readonly destinationConnection: string;
  readonly destinationTrustZone: string;
  readonly classification: DataClass;
  readonly trust: Trust;
  readonly disposition: ReleaseDisposition;
  /**
   * `released`, or the internal denial reason (`route_not_registered`, `detector_fired:EMAIL`, …); storable on every
   * engine, as a decision's is (`storableReason`).
   */
  readonly reason: string;
  /** Fingerprint of the sorted `only()` paths, as written. */
  readonly requestedPathsFingerprint: string;
  /** Fingerprint of the sorted leaf paths of the released payload. */
  readonly releasedPathsFingerprint: string;
  /** Fingerprint of the sorted released paths that redaction, scanning or a transformer changed. */
  readonly transformedPathsFingerprint: string;
  /** Fingerprint of the names of the transforms applied, in order (`redact`, `scan:redact`, custom names). */
  readonly transformNamesFingerprint: string;
  /** How many path changes the transforms made in all (a path changed twice counts twice). */
  readonly transformationCount: number;
  /** Fingerprint of the released payload (`{}` on a denial). */
  readonly payloadFingerprint: string;
  /** UTC. */
  readonly recordedAt: Date;
}

/**
 * Copies the declared fields only: whatever else a caller attached (a payload) never lands in evidence.
 * The stream is `default` unless given; the reason is made storable on every engine, as `decisionRecord` makes it.
 */
export function releaseRecord(record: Omit<ReleaseRecord, 'stream'> & { readonly stream?: string }): ReleaseRecord {
  return {
    id: record.id,
    correlationId: record.correlationId,
    stream: record.stream ?? DEFAULT_EVIDENCE_STREAM,
    sourceKind: record.sourceKind,
    sourceName: record.sourceName,
    destinationConnection: record.destinationConnection,
    destinationTrustZone: record.destinationTrustZone,
    classification: record.classification,
    trust: record.trust,
    disposition: record.disposition,
    reason: storableReason(record.reason),
    requestedPathsFingerprint: record.requestedPathsFingerprint,
    releasedPathsFingerprint: record.releasedPathsFingerprint,
    transformedPathsFingerprint: record.transformedPathsFingerprint,
    transformNamesFingerprint: record.transformNamesFingerprint,
    transformationCount: record.transformationCount,
    payloadFingerprint: record.payloadFingerprint,
    recordedAt: record.recordedAt,
  };
}
