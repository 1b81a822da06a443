/**
 * Who is acting, for which tenant: always from the server (the authenticated request), never from the
 * model. `actor` is the application's own principal object; the ability factory reads it.
 */
export interface ActionContext<TActor = unknown> {
  readonly actor: TActor;
  readonly tenant: string | null;
  readonly metadata?: Readonly<Record<string, unknown>>;
}
