import { type DerivedFromTrusted, isDerivedFromTrusted } from './derived-from-trusted.js';
import { isProvenanceRule, type ProvenanceRule } from './provenance-rule.js';

/**
 * An argument rule with its enforcement spelled out: `enforce: false` runs it in shadow mode (docs/shadow-mode.md,
 * ADR 0098) — where it would refuse (or ask for confirmation) and the capability's enforced rules would not, the
 * provenance stage records `would_deny` (or `would_confirm`), raises `ShadowDecisionRecorded`, and the call goes on
 * as the enforced rules decide. `enforce: true` is the bare rule.
 *
 * @example arguments: { recipient: { rule: { derivedFrom: 'trusted' }, enforce: false }, iban: { rule: 'trusted_only', enforce: false } }
 */
export interface ShadowedArgumentRule {
  readonly rule: ProvenanceRule | DerivedFromTrusted;
  readonly enforce: boolean;
}

/** Whether `value` is a well-formed {@link ShadowedArgumentRule}. */
export function isShadowedArgumentRule(value: unknown): value is ShadowedArgumentRule {
  if (typeof value !== 'object' || value === null || !('rule' in value)) return false;
  const { rule, enforce } = value as ShadowedArgumentRule;
  return typeof enforce === 'boolean' && (isProvenanceRule(rule) || isDerivedFromTrusted(rule));
}
