import { Injectable } from '@nestjs/common';
import type { ProvenanceTrackerOptions } from '../provenance/context-labeller.js';
import { RuntimeProvenance } from '../runtimes/runtime-provenance.js';
import { AgentsProvenanceTracker } from './agents-provenance-tracker.js';

/**
 * Makes {@link AgentsProvenanceTracker}s wired to the module's capabilities, provenance ledger and labels, and to
 * the tools `VerdictAgentsTools` makes (they find the windows the trackers leave).
 *
 * @example
 * const agent = new Agent({ name: 'Support', model: trackers.forAgent({ agent: 'support' }).model(base), tools });
 */
@Injectable()
export class AgentsProvenanceTrackers {
  constructor(private readonly provenance: RuntimeProvenance) {}

  /** A tracker for one agent (its answers are `agent:<name>`); options as the LangChain tracker's. */
  forAgent(options: ProvenanceTrackerOptions = {}): AgentsProvenanceTracker {
    const { windows, conversations } = this.provenance;
    return new AgentsProvenanceTracker(this.provenance.labellerFor(options), windows, conversations);
  }
}
