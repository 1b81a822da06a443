import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { SecurityEventType } from '../events/security-event.js';
import { ContainmentScope } from './containment-scope.js';

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
 * @throws VerdictConfigurationError for a blank name, a threshold or window that is not a positive integer, or a scope other than actor or tenant.
 * @example
 * containmentRule({ name: 'cross-tenant-probing', on: CrossTenantResourceRequested, threshold: 5, windowSeconds: 600 })
 */
export function containmentRule(
  rule: Omit<ContainmentRule, 'contain'> & { readonly contain?: ContainmentRule['contain'] },
): ContainmentRule {
  const fail = (problem: string) => {
    throw new VerdictConfigurationError(`Containment rule "${String(rule.name)}" ${problem}`);
  };
  if (typeof rule.name !== 'string' || rule.name.trim() === '' || rule.name.length > 200)
    fail('needs a non-blank name of at most 200 characters.');
  if (typeof rule.on !== 'function' || typeof rule.on.event !== 'string')
    fail('needs `on`: a security event class such as CrossTenantResourceRequested.');
  if (!Number.isSafeInteger(rule.threshold) || rule.threshold < 1)
    fail('needs a threshold that is a positive integer.');
  if (!Number.isSafeInteger(rule.windowSeconds) || rule.windowSeconds < 1)
    fail('needs windowSeconds that is a positive integer.');
  const contain = rule.contain ?? ContainmentScope.Actor;
  if (contain !== ContainmentScope.Actor && contain !== ContainmentScope.Tenant)
    fail('may contain only the actor or the tenant that caused its events (`contain: "actor" | "tenant"`).');
  return Object.freeze({ ...rule, contain });
}
