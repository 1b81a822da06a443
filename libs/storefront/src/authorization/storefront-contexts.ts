import type { StorefrontContext } from './storefront-actor.js';

/**
 * The action context a storefront request runs in: the signed-in customer, the tenant of the storefront
 * they signed in to and, for trajectory gates, the conversation. Built by the server, never from model output.
 *
 * @example
 * contexts.run(storefrontContext(72, 'acme'), () => pipeline.execute(proposal));
 */
export function storefrontContext(customerId: number, tenant: string, conversationId?: string): StorefrontContext {
  const actor = Object.freeze({ customerId });
  return Object.freeze(
    conversationId === undefined ? { actor, tenant } : { actor, tenant, metadata: Object.freeze({ conversationId }) },
  );
}

/** The seeded actors of the lab story (see `storefrontSeedData`). */
export const StorefrontContexts = {
  /** The lab's signed-in customer: 72 at acme (owns 1002 placed and 1004 shipped). */
  customer72: storefrontContext(72, 'acme'),
  /** 91 at acme (owns 1001). */
  customer91: storefrontContext(91, 'acme'),
  /** 73 at globex (owns 1003). */
  customer73: storefrontContext(73, 'globex'),
  /** 72 claiming globex, a tenant they do not belong to: every ability is empty. */
  customer72AtGlobex: storefrontContext(72, 'globex'),
} as const;
