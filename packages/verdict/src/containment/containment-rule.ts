import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { SecurityEventType } from '../events/security-event.js';
import { RULE_COUNTED_EVENTS } from '../events/rule-counted-events.js';
import { ContainmentScope } from './containment-scope.js';
import { isPositiveInteger } from '../shared/is-positive-integer.js';
import { MAX_RATE_LIMIT, isWindowSeconds } from '../rate-limits/fixed-window.js';

/**
 * An application-defined automatic kill switch (docs/containment.md): `threshold` events of type `on`
 * caused by one actor (or one tenant) within a fixed window of `windowSeconds` contain that actor (or
 * tenant). The subject is always the fingerprint Verdict took from the server-side action context of
 * the runs that raised the events, never a value the model wrote: a rule cannot name whom it contains.
 */
export interface ContainmentRule {
  readonly name: string;
  readonly on: SecurityEventType;
  readonly threshold: number;
  readonly windowSeconds: number;
  /** Contain the events' actor (default) or their tenant. Capabilities are only contained by operators. */
  readonly contain: typeof ContainmentScope.Actor | typeof ContainmentScope.Tenant;
}

/**
 * A checked {@link ContainmentRule}.
 *
 * @throws VerdictConfigurationError for a blank name, an `on` no run raises (`ContainmentEngaged`), a threshold or
 * window that is not a positive integer or is above a rate limit's bounds (2,147,483,647 events, 3,155,760,000
 * seconds), or a scope other than actor or tenant.
 * @example
 * containmentRule({ name: 'cross-tenant-probing', on: CrossTenantResourceRequested, threshold: 5, windowSeconds: 600 })
 */
export function containmentRule(
  rule: Omit<ContainmentRule, 'contain'> & { readonly contain?: ContainmentRule['contain'] },
): ContainmentRule {
  const built = { ...rule, contain: rule.contain ?? ContainmentScope.Actor };
  const problem = containmentRuleProblem(built);
  if (problem !== null) throw new VerdictConfigurationError(`Containment rule "${String(rule.name)}" ${problem}`);
  return Object.freeze(built);
}

/**
 * What keeps `rule` from being a rule {@link containmentRule} would build, or `null`: the checks it runs, for a
 * rule given whole (its `contain` included). The module's boot runs them again on every configured rule, so a rule
 * written as a plain object is held to them too.
 */
export function containmentRuleProblem(rule: ContainmentRule): string | null {
  if (typeof rule.name !== 'string' || rule.name.trim() === '' || rule.name.length > 200)
    return 'needs a non-blank name of at most 200 characters.';
  if (typeof rule.on !== 'function' || typeof rule.on.event !== 'string')
    return 'needs `on`: a security event class such as CrossTenantResourceRequested.';
  if (!RULE_COUNTED_EVENTS.has(rule.on))
    return `counts ${rule.on.name} events, which no run raises, so it would never contain: \`on\` is one of ${[...RULE_COUNTED_EVENTS].map((event) => event.name).join(', ')}.`;
  // A rule counts in a rate-limit window: the bounds of a rate limit's, so that every counter store can count it.
  if (!isPositiveInteger(rule.threshold) || rule.threshold > MAX_RATE_LIMIT)
    return 'needs a threshold that is a positive integer, at most 2,147,483,647.';
  if (!isWindowSeconds(rule.windowSeconds))
    return 'needs windowSeconds that is a positive integer, at most 3,155,760,000 (100 years).';
  if (rule.contain !== ContainmentScope.Actor && rule.contain !== ContainmentScope.Tenant)
    return 'may contain only the actor or the tenant that caused its events (`contain: "actor" | "tenant"`).';
  return null;
}
