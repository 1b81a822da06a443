import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import type { ProvenanceRule } from './provenance-rule.js';
import { isShadowedArgumentRule } from './shadowed-argument-rule.js';

/** A capability's context rule (`untrustedContext`), bare or `{ rule, enforce }`, and whether it is enforced. */
export interface DeclaredContextRule {
  readonly rule: ProvenanceRule;
  /** `false` for a rule declared `{ rule, enforce: false }` (shadow mode, docs/shadow-mode.md). */
  readonly enforced: boolean;
}

/** The context rule a capability's policy declares; `undefined` when it declares none. Checked at boot. */
export function declaredContextRule(definition: CapabilityDefinition): DeclaredContextRule | undefined {
  const declared = definition.provenance?.untrustedContext;
  if (declared === undefined) return undefined;
  return isShadowedArgumentRule(declared)
    ? { rule: declared.rule as ProvenanceRule, enforced: declared.enforce }
    : { rule: declared, enforced: true };
}
