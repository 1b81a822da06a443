import { Inject, Injectable } from '@nestjs/common';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { ProvenanceLabels } from '../provenance/provenance-labels.js';
import {
  PROVENANCE_STAGE_OPTIONS,
  type ProvenanceStageOptions,
} from '../provenance/provenance-stage-options.interface.js';
import { provenanceTrackerWiring } from '../provenance/provenance-tracker-wiring.js';
import { ProvenanceTracker, type ProvenanceTrackerOptions } from './provenance-tracker.js';

/** Makes {@link ProvenanceTracker}s wired to the module's capabilities, provenance ledger and shared labels. */
@Injectable()
export class ProvenanceTrackers {
  constructor(
    private readonly registry: CapabilityRegistry,
    private readonly labels: ProvenanceLabels,
    @Inject(PROVENANCE_STAGE_OPTIONS) private readonly options: ProvenanceStageOptions,
  ) {}

  /** A tracker for one agent; every tracker of the module shares what it saw, so labels follow text across agents. */
  forAgent(options: ProvenanceTrackerOptions = {}): ProvenanceTracker {
    return new ProvenanceTracker(provenanceTrackerWiring(this.registry, this.labels, this.options), options);
  }
}
