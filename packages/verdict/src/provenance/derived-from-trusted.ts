import { ProvenanceRule } from './provenance-rule.js';

/**
 * The positive rule of an argument: its value must be derived from trusted content — it occurs, in canonical form,
 * in trusted content of the window (the user's message, the system prompt, a trusted result) or in the policy's
 * `trustedValues` — else the `otherwise` outcome at stage `provenance`. Any re-spelling, encoding or computation
 * of an attacker's value fails it, because none of them is in trusted content. Default `otherwise`: `deny`.
 *
 * @example arguments: { recipient: { derivedFrom: 'trusted', otherwise: 'require_confirmation' } }
 */
export interface DerivedFromTrusted {
  readonly derivedFrom: 'trusted';
  /** What happens when the value is not derived from trusted content. Default: `deny`. */
  readonly otherwise?: typeof ProvenanceRule.Deny | typeof ProvenanceRule.RequireConfirmation;
}

/** Whether `rule` is a well-formed positive rule. */
export function isDerivedFromTrusted(rule: unknown): rule is DerivedFromTrusted {
  if (typeof rule !== 'object' || rule === null || (rule as DerivedFromTrusted).derivedFrom !== 'trusted') return false;
  const { otherwise } = rule as DerivedFromTrusted;
  return (
    otherwise === undefined || otherwise === ProvenanceRule.Deny || otherwise === ProvenanceRule.RequireConfirmation
  );
}

/** The outcome of a positive rule whose value is not derived from trusted content. */
export function otherwiseOf(rule: DerivedFromTrusted): ProvenanceRule {
  return rule.otherwise ?? ProvenanceRule.Deny;
}

/**
 * The rule a declared destination takes when the policy gives it no explicit `arguments` rule: the positive
 * rule, confirmed by a human when not derived (ADR 0038).
 */
export const DESTINATION_RULE: DerivedFromTrusted = Object.freeze({
  derivedFrom: 'trusted',
  otherwise: ProvenanceRule.RequireConfirmation,
});
