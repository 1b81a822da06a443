import type { Trust } from '../context-release/trust.js';
import type { ProvenanceSourceKind } from './provenance-source.js';

/** What a provenance record states. */
export const ProvenanceRecordKind = {
  /** A content item entered an agent's context with this label. */
  Label: 'label',
  /** A content item (a model's answer) was derived from another one (an item of its window). */
  Derivation: 'derivation',
  /** An untrusted item influenced a proposal: in its window (no argument path) or in one argument's value. */
  Influence: 'influence',
} as const;

export type ProvenanceRecordKind = (typeof ProvenanceRecordKind)[keyof typeof ProvenanceRecordKind];

/**
 * One row of the provenance ledger: labels, fingerprints and derivation edges, never content, argument
 * values or tool-call ids.
 */
export interface ProvenanceRecord {
  readonly id: string;
  readonly kind: ProvenanceRecordKind;
  /** `sha256` of the content item's text. */
  readonly contentFingerprint: string;
  readonly sourceKind: ProvenanceSourceKind;
  readonly sourceName: string;
  readonly trust: Trust;
  /** For a derivation: the fingerprint of the item it was derived from. */
  readonly parentFingerprint: string | null;
  /** For an influence: the envelope id of the proposal (its decision records share it). */
  readonly correlationId: string | null;
  readonly capability: string | null;
  /** For an argument influence: `sha256` of the argument path. */
  readonly argumentPathFingerprint: string | null;
  /** UTC. */
  readonly recordedAt: Date;
}

/** Copies the declared fields only: a caller's object may carry more than its type says. */
export function provenanceRecord(record: ProvenanceRecord): ProvenanceRecord {
  return {
    id: record.id,
    kind: record.kind,
    contentFingerprint: record.contentFingerprint,
    sourceKind: record.sourceKind,
    sourceName: record.sourceName,
    trust: record.trust,
    parentFingerprint: record.parentFingerprint ?? null,
    correlationId: record.correlationId ?? null,
    capability: record.capability ?? null,
    argumentPathFingerprint: record.argumentPathFingerprint ?? null,
    recordedAt: record.recordedAt,
  };
}
