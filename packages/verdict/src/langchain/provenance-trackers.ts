import { Inject, Injectable } from '@nestjs/common';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { ActionContextStore } from '../context/action-context.store.js';
import { ACTION_CONTEXT_OPTIONS, type ActionContextOptions } from '../context/action-context-options.interface.js';
import { moduleActorKey } from '../context/actor-key.js';
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
    private readonly contexts: ActionContextStore,
    @Inject(ACTION_CONTEXT_OPTIONS) private readonly contextOptions: ActionContextOptions,
  ) {}

  /** A tracker for one agent; every tracker of the module shares what it saw, so labels follow text across agents. */
  forAgent(options: ProvenanceTrackerOptions = {}): ProvenanceTracker {
    const actorKey = moduleActorKey(this.contextOptions);
    const wiring = provenanceTrackerWiring(this.registry, this.labels, this.options, this.contexts, actorKey);
    return new ProvenanceTracker(wiring, options);
  }
}
