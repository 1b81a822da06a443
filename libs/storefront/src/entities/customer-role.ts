/**
 * An opaque role label carried by every {@link Customer}. The storefront's CASL rules do not read it
 * (a `support` customer gets exactly a customer's rights); it exists so labs can show that a role name
 * is data, not authority.
 */
export const CustomerRole = {
  Customer: 'customer',
  Support: 'support',
} as const;

/** `'customer' | 'support'`. */
export type CustomerRole = (typeof CustomerRole)[keyof typeof CustomerRole];
