/**
 * Names of the storefront capabilities, for binding tools:
 * `verdictTools.bound(createLookupOrderTool(dataSource), StorefrontCapability.ViewOrder)`.
 */
export const StorefrontCapability = {
  ViewOrder: 'orders.view',
  CancelOrder: 'orders.cancel',
} as const;

/** `'orders.view' | 'orders.cancel'`. */
export type StorefrontCapability = (typeof StorefrontCapability)[keyof typeof StorefrontCapability];
