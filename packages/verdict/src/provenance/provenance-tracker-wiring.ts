import type { CapabilityRegistry } from '../capabilities/capability-registry.js';
import type { ActionContext } from '../context/action-context.js';
import type { ActionContextStore } from '../context/action-context.store.js';
import type { ActorKey } from '../context/actor-key.js';
import { stablePrincipalKey } from './label-principal.js';
import type { ProvenanceLabels } from './provenance-labels.js';
import type { ProvenanceLedger } from './provenance-ledger.interface.js';
import type { ProvenanceStageOptions } from './provenance-stage-options.interface.js';
import type { ResultProvenance } from './result-provenance.js';

/**
 * What a tracker needs from the module: shared labels, the capabilities' result provenance, the ledger, and the
 * action context whose principal the windows it leaves belong to.
 */
export interface ProvenanceTrackerWiring {
  readonly labels: ProvenanceLabels;
  /** The current action context, if any. */
  readonly context: () => ActionContext | undefined;
  /**
   * Whose windows a context's calls leave (actor and tenant fingerprints, under the module's `actorKey`):
   * `undefined` for an actor without a stable key, whose calls then leave no window (unobserved). Throws what the
   * `actorKey` throws itself: an application fault (`stablePrincipalKey`).
   */
  readonly principal: (context: ActionContext) => string | undefined;
  readonly resultProvenance: (capability: string) => ResultProvenance | undefined;
  readonly ledger?: ProvenanceLedger;
  readonly clock: () => Date;
}

/** A tracker's wiring to the module's capabilities, provenance ledger, clock and action context, over `labels`. */
export function provenanceTrackerWiring(
  registry: CapabilityRegistry,
  labels: ProvenanceLabels,
  options: ProvenanceStageOptions,
  contexts: ActionContextStore,
  actorKey?: ActorKey,
): ProvenanceTrackerWiring {
  return {
    labels,
    context: () => contexts.current(),
    // An actor without a stable key has no windows of its own: its calls are unobserved, never another's.
    principal: (context) => stablePrincipalKey(context, actorKey),
    resultProvenance: (capability) => registry.find(capability)?.provenance?.results,
    ledger: options.provenance?.ledger,
    clock: options.clock ?? (() => new Date()),
  };
}
