import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import type { ProvenanceOptions } from './provenance-policy.js';

/** Whether the capability is consequential: declared, or else whether it `mutates`. */
export function isConsequential(definition: CapabilityDefinition): boolean {
  return definition.consequential ?? definition.mutates === true;
}

/** Whether strict mode makes confirmation the default for this capability's findings. */
export function isStrict(definition: CapabilityDefinition, options: ProvenanceOptions | undefined): boolean {
  return options?.strict === true && isConsequential(definition);
}

/** Whether the provenance stage runs for this capability: it has rules, or strict mode covers it. */
export function provenanceApplies(definition: CapabilityDefinition, options: ProvenanceOptions | undefined): boolean {
  const policy = definition.provenance;
  return (
    isStrict(definition, options) ||
    policy?.untrustedContext !== undefined ||
    policy?.arguments !== undefined ||
    policy?.destinations !== undefined
  );
}
