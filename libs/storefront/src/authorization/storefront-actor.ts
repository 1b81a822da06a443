import type { ActionContext } from '@verdict/nestjs';

/**
 * The storefront's principal as it travels in Verdict's `ActionContext.actor`: only the customer id.
 * The server sets it from the authenticated session; the model never supplies it. Tenant comes from
 * `ActionContext.tenant`.
 *
 * @example
 * contexts.run({ actor: { customerId: 72 } satisfies StorefrontActor, tenant: 'acme' }, () => agent.invoke(input));
 */
export interface StorefrontActor {
  readonly customerId: number;
}

/**
 * The action context the storefront's capabilities run in. A library names it where it reads the actor
 * (`fixedWindow<OrderIdArguments, Order, StorefrontContext>(...)`) rather than registering `VerdictTypes`,
 * which would impose its actor on every application that imports it (ADR 0018).
 */
export type StorefrontContext = ActionContext<StorefrontActor>;

/** Whether `actor` has the {@link StorefrontActor} shape (a positive integer `customerId`). */
export function isStorefrontActor(actor: unknown): actor is StorefrontActor {
  if (typeof actor !== 'object' || actor === null) return false;
  const { customerId } = actor as { customerId?: unknown };
  return Number.isSafeInteger(customerId) && (customerId as number) > 0;
}
