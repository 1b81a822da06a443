/**
 * Who is acting, for which tenant: always from the server (the authenticated request), never from the
 * model. `actor` is the application's own principal object; the ability factory reads it.
 */
export interface ActionContext<TActor = unknown> {
  readonly actor: TActor;
  readonly tenant: string | null;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** An object with an actor (not null or undefined) and a tenant that is a string or null. */
export function isActionContext(value: unknown): value is ActionContext {
  if (typeof value !== 'object' || value === null) return false;
  const { actor, tenant } = value as ActionContext;
  return actor !== undefined && actor !== null && (tenant === null || typeof tenant === 'string');
}
