import { Injectable } from '@nestjs/common';
import type { ProvenanceTrackerOptions } from '../provenance/context-labeller.js';
import { RuntimeProvenance } from '../runtimes/runtime-provenance.js';
import { AiSdkProvenanceTracker } from './ai-sdk-provenance-tracker.js';

/**
 * Makes {@link AiSdkProvenanceTracker}s wired to the module's capabilities, provenance ledger and labels, and to
 * the tools `VerdictAiSdkTools` makes (they find the windows the trackers leave).
 *
 * @example
 * const model = wrapLanguageModel({ model: base, middleware: [trackers.forAgent({ agent: 'support' }).middleware()] });
 */
@Injectable()
export class AiSdkProvenanceTrackers {
  constructor(private readonly provenance: RuntimeProvenance) {}

  /** A tracker for one agent (its answers are `agent:<name>`); options as the LangChain tracker's. */
  forAgent(options: ProvenanceTrackerOptions = {}): AiSdkProvenanceTracker {
    const { windows, conversations } = this.provenance;
    return new AiSdkProvenanceTracker(this.provenance.labellerFor(options), windows, conversations);
  }
}
