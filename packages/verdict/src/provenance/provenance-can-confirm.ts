import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { declaredContextRule } from './declared-context-rule.js';
import { isDerivedFromTrusted, otherwiseOf } from './derived-from-trusted.js';
import { isStrict } from './provenance-applicability.js';
import { declaredArgumentRules } from './provenance-argument-rules.js';
import type { ProvenanceOptions } from './provenance-policy.js';
import { ProvenanceRule } from './provenance-rule.js';

/**
 * Whether the provenance stage can ask a human to confirm a call of `definition`, and so issue an approval receipt for
 * it: the capability enforces its policies (not `enforce: false`), and strict mode covers it or an enforced rule asks
 * for confirmation — its `untrustedContext` rule, an argument rule, the `otherwise` of a positive rule, or a declared
 * destination's positive rule (ADR 0038). Boot reads it to require an approval receipt store, and receipt lookups to
 * know which capabilities' receipts a requester can have asked for.
 */
export function provenanceCanConfirm(
  definition: CapabilityDefinition,
  options: ProvenanceOptions | undefined,
): boolean {
  if (definition.enforce === false) return false;
  if (isStrict(definition, options)) return true;
  const context = declaredContextRule(definition);
  if (context?.enforced === true && context.rule === ProvenanceRule.RequireConfirmation) return true;
  return declaredArgumentRules(definition).some(
    ({ rule, enforced }) =>
      enforced && (isDerivedFromTrusted(rule) ? otherwiseOf(rule) : rule) === ProvenanceRule.RequireConfirmation,
  );
}
