import { Inject, Injectable } from '@nestjs/common';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { ActionContextStore } from '../context/action-context.store.js';
import { ACTION_CONTEXT_OPTIONS, type ActionContextOptions } from '../context/action-context-options.interface.js';
import { moduleActorKey } from '../context/actor-key.js';
import { ContextLabeller, type ProvenanceTrackerOptions } from '../provenance/context-labeller.js';
import { ProvenanceLabels } from '../provenance/provenance-labels.js';
import {
  PROVENANCE_STAGE_OPTIONS,
  type ProvenanceStageOptions,
} from '../provenance/provenance-stage-options.interface.js';
import { type ProvenanceTrackerWiring, provenanceTrackerWiring } from '../provenance/provenance-tracker-wiring.js';
import { ProviderConversationWindows } from './provider-conversation-windows.js';
import { RuntimeCallWindows } from './runtime-call-windows.js';

/**
 * What the tools and the provenance trackers of one agent-runtime module (AI SDK, OpenAI Agents) share: the
 * module's labels, the windows trackers leave for bound tools, the windows of the conversations providers keep
 * (ADR 0151), and the wiring to the capabilities and ledger (ADR 0106). Provided by that runtime's module.
 */
@Injectable()
export class RuntimeProvenance {
  readonly windows: RuntimeCallWindows;
  readonly conversations: ProviderConversationWindows;
  readonly wiring: ProvenanceTrackerWiring;
  /**
   * Labels a bound tool's result when the window of its call names no tracker's (an unobserved window): without
   * tracker options. A tracker's own labeller labels the results of the calls it saw (`leftBy`).
   */
  readonly labeller: ContextLabeller;

  constructor(
    registry: CapabilityRegistry,
    labels: ProvenanceLabels,
    contexts: ActionContextStore,
    @Inject(PROVENANCE_STAGE_OPTIONS) options: ProvenanceStageOptions,
    @Inject(ACTION_CONTEXT_OPTIONS) contextOptions: ActionContextOptions,
  ) {
    const actorKey = moduleActorKey(contextOptions);
    this.wiring = provenanceTrackerWiring(registry, labels, options, contexts, actorKey);
    this.windows = new RuntimeCallWindows(labels, this.wiring);
    this.conversations = new ProviderConversationWindows(labels, this.wiring);
    this.labeller = new ContextLabeller(this.wiring);
  }

  /** A labeller for one tracked agent. */
  labellerFor(options: ProvenanceTrackerOptions = {}): ContextLabeller {
    return new ContextLabeller(this.wiring, options);
  }
}
