import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { recordKeyedRulePaths } from '../provenance/provenance-candidate-schema.js';
import { FindingCode } from './finding-code.js';
import { Severity } from './severity.js';
import type { WiringFinding } from './wiring-finding.js';

/**
 * One finding per capability whose provenance argument rules reach, or lie under, a record whose keys the model
 * writes: provenance traces values, never keys, so a value the model copied from untrusted content into a key (an
 * IBAN keying an amount) escapes the rules.
 */
export function recordKeyedRuleFindings(definitions: readonly CapabilityDefinition[]): WiringFinding[] {
  return definitions
    .map((definition) => ({ name: definition.name, paths: recordKeyedRulePaths(definition) }))
    .filter(({ paths }) => paths.length > 0)
    .map(({ name, paths }) => ({
      code: FindingCode.ProvenanceRecordKeys,
      severity: Severity.Medium,
      subject: name,
      message: `Capability "${name}" has provenance rules for arguments ${paths.map((path) => `"${path}"`).join(', ')}, which reach a record whose keys the model writes: provenance traces values, not keys, so a value copied from untrusted content into a key escapes the rules. Give keyed values a field of their own (an array of { iban, amount } rather than a record keyed by IBAN), or constrain the keys to an enum.`,
    }));
}
