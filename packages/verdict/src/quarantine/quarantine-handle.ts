import type { ProvenanceSource } from '../provenance/provenance-source.js';

/**
 * What the deciding model is given instead of quarantined content: an opaque id, and the names of the sources
 * the content came from (the application's names, never content). Valid in the process that issued it, for
 * the actor, tenant and conversation it was issued to (ADR 0104).
 *
 * @example { id: 'q-6f1c…', sources: [ProvenanceSource.mcp('files')] }
 */
export interface QuarantineHandle {
  readonly id: string;
  readonly sources: readonly ProvenanceSource[];
}
