import { randomUUID } from 'node:crypto';
import type { LabelledContent } from './labelled-content.js';
import type { ProvenanceRecord, ProvenanceRecordKind } from './provenance-record.js';

/**
 * The ledger record of one labelled item: its label (`Label`), or an edge from it to `parent` (`Derivation`).
 * Fingerprints and labels only, never content.
 */
export function contentRecord(
  item: LabelledContent,
  kind: ProvenanceRecordKind,
  recordedAt: Date,
  parent?: LabelledContent,
): ProvenanceRecord {
  const { label } = item;
  return {
    id: randomUUID(),
    kind,
    contentFingerprint: label.fingerprint,
    sourceKind: label.source.kind,
    sourceName: label.source.name,
    trust: label.trust,
    parentFingerprint: parent?.label.fingerprint ?? null,
    correlationId: null,
    capability: null,
    argumentPathFingerprint: null,
    recordedAt,
  };
}
