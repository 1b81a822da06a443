import type { CapabilityRegistry } from '../capabilities/capability-registry.js';
import type { ContextReleaser } from '../context-release/context-releaser.js';
import type { ProvenanceLabels } from '../provenance/provenance-labels.js';

/** What a model-input guard of any runtime takes from the module, for its factory to pass. */
export interface ModuleGuardWiring {
  readonly releaser: Pick<ContextReleaser, 'requireRelease'>;
  readonly publicMessage: string;
  readonly isCapability: (name: string) => boolean;
  readonly provenanceLabels: ProvenanceLabels;
}

/** The module's context release, public message, capabilities (for `not_executed` answers) and provenance labels. */
export function moduleGuardWiring(
  releaser: Pick<ContextReleaser, 'requireRelease'>,
  registry: CapabilityRegistry,
  publicMessage: string,
  provenanceLabels: ProvenanceLabels,
): ModuleGuardWiring {
  return { releaser, publicMessage, isCapability: (name) => registry.find(name) !== undefined, provenanceLabels };
}
