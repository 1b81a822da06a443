import type { FactoryProvider } from '@nestjs/common';
import { ActionContextStore } from '../context/action-context.store.js';
import { ACTION_CONTEXT_OPTIONS, type ActionContextOptions } from '../context/action-context-options.interface.js';
import { moduleActorKey } from '../context/actor-key.js';
import { labelPrincipal } from './label-principal.js';
import { DEFAULT_PROVENANCE_CAPACITY, ProvenanceLabels } from './provenance-labels.js';

/**
 * The {@link ProvenanceLabels} of a runtime module (LangChain, AI SDK, OpenAI Agents): labels given in an action
 * context are remembered for its principal, under the module's `actorKey`.
 */
export const provenanceLabelsProvider: FactoryProvider<ProvenanceLabels> = {
  provide: ProvenanceLabels,
  useFactory: (contexts: ActionContextStore, options: ActionContextOptions) =>
    new ProvenanceLabels(
      DEFAULT_PROVENANCE_CAPACITY,
      labelPrincipal(() => contexts.current(), moduleActorKey(options)),
    ),
  inject: [ActionContextStore, ACTION_CONTEXT_OPTIONS],
};
