import type { CapabilityRegistry } from '../capabilities/capability-registry.js';
import type { ProvenanceLabels } from './provenance-labels.js';
import type { ProvenanceLedger } from './provenance-ledger.interface.js';
import type { ProvenanceStageOptions } from './provenance-stage-options.interface.js';
import type { ResultProvenance } from './result-provenance.js';

/** What a tracker needs from the module: shared labels, the capabilities' result provenance, the ledger. */
export interface ProvenanceTrackerWiring {
  readonly labels: ProvenanceLabels;
  readonly resultProvenance: (capability: string) => ResultProvenance | undefined;
  readonly ledger?: ProvenanceLedger;
  readonly clock: () => Date;
}

/** A tracker's wiring to the module's capabilities, provenance ledger and clock, over `labels`. */
export function provenanceTrackerWiring(
  registry: CapabilityRegistry,
  labels: ProvenanceLabels,
  options: ProvenanceStageOptions,
): ProvenanceTrackerWiring {
  return {
    labels,
    resultProvenance: (capability) => registry.find(capability)?.provenance?.results,
    ledger: options.provenance?.ledger,
    clock: options.clock ?? (() => new Date()),
  };
}
