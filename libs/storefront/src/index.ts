// Entities and schema
export { Tenant } from './entities/tenant.entity.js';
export { Customer } from './entities/customer.entity.js';
export { Order } from './entities/order.entity.js';
export { SupportTicket } from './entities/support-ticket.entity.js';
export { RecordsExport } from './entities/records-export.entity.js';
export { OrderStatus } from './entities/order-status.js';
export { CustomerRole } from './entities/customer-role.js';
export { storefrontEntities } from './entities/storefront-entities.js';
export { CreateStorefrontTables1795987483857 } from './migrations/create-storefront-tables.migration.js';
export { CreateSupportTickets1795990000000 } from './migrations/create-support-tickets.migration.js';
export { CreateRecordsExports1796100000000 } from './migrations/create-records-exports.migration.js';
export { storefrontMigrations } from './migrations/storefront-migrations.js';

// Seed
export { seedStorefront } from './seed/seed-storefront.js';
export { storefrontSeedData } from './seed/storefront-seed-data.js';
export { openSqliteStorefront, type SqliteStorefrontOptions } from './seed/open-sqlite-storefront.js';

// Authorization
export { type StorefrontActor, type StorefrontContext, isStorefrontActor } from './authorization/storefront-actor.js';
export { storefrontContext, StorefrontContexts } from './authorization/storefront-contexts.js';
export {
  type StorefrontAbility,
  type StorefrontAction,
  type StorefrontSubject,
  ONLY_PLACED_ORDERS_CAN_BE_CANCELLED,
  defineStorefrontAbility,
  denyAllStorefrontAbility,
} from './authorization/storefront-ability.js';
export { StorefrontAbilityFactory } from './authorization/storefront-ability.factory.js';

// Orders
export { orderIdArguments, type OrderIdArguments } from './orders/order-id.arguments.js';
export { orderView, type OrderView } from './orders/order-view.js';
export { findOrderInTenant } from './orders/find-order-in-tenant.js';
export { OrderChangedError } from './orders/order-changed.error.js';

// Capabilities
export { StorefrontCapabilities } from './capabilities/storefront.capabilities.js';
export { StorefrontCapability } from './capabilities/storefront-capability.js';
export {
  ShipmentCapabilities,
  SHIPMENT_REFRESHES_PER_HOUR,
  type ShipmentView,
} from './capabilities/shipment.capabilities.js';
export { SupportCapabilities } from './capabilities/support.capabilities.js';
export { type OrderSource, orderPrimaryKeyPolicy, resolveOrderInContextTenant } from './capabilities/order-target.js';
export { RefundCapabilities, type Refund } from './capabilities/refund.capabilities.js';
export { refundArguments, type RefundArguments } from './orders/refund.arguments.js';

// Customer records (the exfiltration trajectory)
export { RecordsCapabilities } from './records/records.capabilities.js';
export { RecordsCapability } from './records/records-capability.js';
export { customerRecordsExfiltration } from './records/customer-records-exfiltration.js';
export { customerRecordsScope } from './records/records-trajectory-scope.js';
export { resolveLatestExport, exportPrimaryKeyPolicy } from './records/records-export-target.js';
export { sharedLinkResource, sharingDestination } from './records/sharing-destination.js';
export { recordsEffects } from './records/records-effects.js';
export { SharingOutbox, type SharedItem } from './records/sharing-outbox.js';
export {
  uploadArguments,
  sendLinkArguments,
  type UploadArguments,
  type SendLinkArguments,
} from './records/records.arguments.js';

// LangChain tools
export {
  LOOKUP_ORDER_TOOL,
  CANCEL_ORDER_TOOL,
  REFRESH_SHIPMENT_TOOL,
  ESCALATE_ORDER_TOOL,
  ORDER_NOT_FOUND,
} from './tools/order-tool-descriptions.js';
export { definitionOnlyTool } from './tools/definition-only-tool.js';
export { refreshShipmentTool, escalateOrderTool } from './tools/operation-tools.js';
export { createLookupOrderTool } from './tools/lookup-order.tool.js';
export { createCancelOrderTool } from './tools/cancel-order.tool.js';
export {
  manuallySecuredLookupOrder,
  type StorefrontActorProvider,
} from './tools/manually-secured-lookup-order.tool.js';

// Evaluation
export { storefrontAttackPack } from './evaluation/storefront-attack-pack.js';

// Captured model proposals
export { capturedProposals, type CapturedProposalName, type CapturedToolCall } from './proposals/captured-proposals.js';
