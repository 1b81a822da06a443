/**
 * Names of the storefront capabilities, for binding tools:
 * `verdictTools.bound(createLookupOrderTool(dataSource), StorefrontCapability.ViewOrder)`.
 */
export const StorefrontCapability = {
  ViewOrder: 'orders.view',
  CancelOrder: 'orders.cancel',
  /** Rate limited: see `ShipmentCapabilities`. */
  RefreshShipment: 'shipments.refresh',
  /** At most once per order: see `SupportCapabilities`. */
  EscalateOrder: 'support.escalate',
  /** Requires verified confirmation: see `RefundCapabilities`. */
  RefundOrder: 'orders.refund',
} as const;

/** A storefront capability name. */
export type StorefrontCapability = (typeof StorefrontCapability)[keyof typeof StorefrontCapability];
