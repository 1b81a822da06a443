import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { recordKeyedRulePaths } from '../provenance/record-keyed-rule-paths.js';
import { FindingCode } from './finding-code.js';
import { Severity } from './severity.js';
import type { WiringFinding } from './wiring-finding.js';

/**
 * One finding per capability whose provenance argument rules or destinations reach keys the model writes
 * ({@link recordKeyedRulePaths}): provenance traces values, never keys, so a value the model copied from untrusted
 * content into a key (an IBAN keying an amount) escapes the rules.
 */
export function recordKeyedRuleFindings(definitions: readonly CapabilityDefinition[]): WiringFinding[] {
  return definitions
    .map((definition) => ({ name: definition.name, paths: recordKeyedRulePaths(definition) }))
    .filter(({ paths }) => paths.length > 0)
    .map(({ name, paths }) => ({
      code: FindingCode.ProvenanceRecordKeys,
      severity: Severity.Medium,
      subject: name,
      message: `Capability "${name}" has provenance rules for ${paths.map((path) => `"${path}"`).join(', ')}, which reach keys the model writes (a record keyed by any string, a loose object, an unconstrained value): provenance traces values, not keys, so a value copied from untrusted content into a key escapes the rules. Give keyed values a field of their own (an array of { iban, amount } rather than a record keyed by IBAN), or name the keys (z.partialRecord(z.enum([...]), ...)).`,
    }));
}
