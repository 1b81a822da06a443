import { isZodSchema } from '../capabilities/argument-schema.js';
import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { declaredArgumentRules } from '../provenance/provenance-argument-rules.js';
import { FindingCode } from './finding-code.js';
import { Severity } from './severity.js';
import type { WiringFinding } from './wiring-finding.js';

/**
 * One finding per capability that declares provenance argument rules (or destinations) on arguments typed by a
 * schema Verdict cannot read (a class-validator DTO class): the boot check that a rule's path is named by the
 * schema and can yield a candidate does not run, so a typo'd path or a rule on a boolean would be inert and
 * nothing would say so.
 */
export function uncheckedProvenanceRuleFindings(definitions: readonly CapabilityDefinition[]): WiringFinding[] {
  return definitions
    .filter((definition) => !isZodSchema(definition.arguments))
    .map((definition) => ({ name: definition.name, paths: declaredArgumentRules(definition).map(({ path }) => path) }))
    .filter(({ paths }) => paths.length > 0)
    .map(({ name, paths }) => ({
      code: FindingCode.ProvenanceRulesUnchecked,
      severity: Severity.Low,
      subject: name,
      message: `Capability "${name}" has provenance rules for arguments ${paths.map((path) => `"${path}"`).join(', ')}, but its arguments are a DTO class whose schema Verdict cannot read: whether each path names an argument that can yield a value provenance can trace is not checked, and a rule that cannot is inert. Check the paths by hand, or declare the arguments with zod.`,
    }));
}
