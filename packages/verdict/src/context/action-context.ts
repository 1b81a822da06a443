import type { VerdictActor, VerdictTenant } from './verdict-types.js';

/**
 * Who is acting, for which tenant: always from the server (the authenticated request), never from the
 * model. `actor` is the application's own principal object; the ability factory reads it. Its type is the
 * one registered in {@link VerdictTypes} (`unknown` when none is), or a library's explicit `TActor`.
 */
export interface ActionContext<TActor = VerdictActor, TTenant extends string | null = VerdictTenant> {
  readonly actor: TActor;
  readonly tenant: TTenant;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/**
 * Any action context, whatever its actor and tenant types: the bound of the `TContext` parameters that
 * Verdict's factories thread from a resolver to the executor.
 */
export type AnyActionContext = ActionContext<unknown, string | null>;

/**
 * An object with an actor (not null, undefined or a blank string) and a tenant that is a non-blank string or
 * null. Only that is checked: the actor's shape is the application's to check (its ability factory does). A
 * blank actor or tenant is an identity claim that was missing (`''` from an empty header or token claim), never a
 * principal: it is rejected, as a missing one is.
 */
export function isActionContext(value: unknown): value is ActionContext<NonNullable<unknown>, string | null> {
  if (typeof value !== 'object' || value === null) return false;
  const { actor, tenant } = value as ActionContext;
  if (actor === undefined || actor === null || isBlank(actor)) return false;
  return isTenant(tenant);
}

/** A tenant an action context can carry: a non-blank string, or `null` (an application without tenants). */
export function isTenant(value: unknown): value is string | null {
  return value === null || (typeof value === 'string' && !isBlank(value));
}

const isBlank = (value: unknown): boolean => typeof value === 'string' && value.trim() === '';
