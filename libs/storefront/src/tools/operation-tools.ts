import { orderIdArguments } from '../orders/order-id.arguments.js';
import { definitionOnlyTool } from './definition-only-tool.js';
import { ESCALATE_ORDER_TOOL, REFRESH_SHIPMENT_TOOL } from './order-tool-descriptions.js';

/** `refresh_shipment`: bind it to `shipments.refresh`. */
export const refreshShipmentTool = definitionOnlyTool(REFRESH_SHIPMENT_TOOL, orderIdArguments);

/** `escalate_order`: bind it to `support.escalate`. */
export const escalateOrderTool = definitionOnlyTool(ESCALATE_ORDER_TOOL, orderIdArguments);
