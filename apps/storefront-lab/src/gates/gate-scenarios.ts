import { Injectable } from '@nestjs/common';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { ActionContextStore } from '@verdict/nestjs';
import { VerdictTools } from '@verdict/nestjs/langchain';
import {
  type CapturedToolCall,
  ShipmentCapabilities,
  StorefrontCapability,
  StorefrontContexts,
  SupportTicket,
  capturedProposals,
  escalateOrderTool,
  refreshShipmentTool,
} from '@verdict/storefront';
import { DataSource } from 'typeorm';
import { type ToolCallOutcome, toolCallOutcome } from './tool-call-outcome.js';

/**
 * The durable-gate labs, as customer 72 of acme. Both run against the lab's SQLite database and keep
 * their state, as production would: running a lab again in the same hour shows the budget already
 * spent and the escalation already made.
 */
@Injectable()
export class GateScenarios {
  private readonly refreshShipment: StructuredToolInterface;
  private readonly escalateOrder: StructuredToolInterface;
  private runs = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly contexts: ActionContextStore,
    private readonly shipments: ShipmentCapabilities,
    tools: VerdictTools,
  ) {
    this.refreshShipment = tools.bound(refreshShipmentTool, StorefrontCapability.RefreshShipment);
    this.escalateOrder = tools.bound(escalateOrderTool, StorefrontCapability.EscalateOrder);
  }

  /** "A permission is not a budget": three owned shipment refreshes; the budget is two per hour. */
  async permissionIsNotABudget(): Promise<{ calls: ToolCallOutcome[]; carrierRequests: number }> {
    const before = this.shipments.refreshes.length;
    const run = ++this.runs;
    const calls = [];
    for (const n of [1, 2, 3])
      calls.push(
        await this.call(
          this.refreshShipment,
          capturedProposals.shipmentRefresh,
          `${capturedProposals.shipmentRefresh.id}_${run}_${n}`,
        ),
      );
    return { calls, carrierRequests: this.shipments.refreshes.length - before };
  }

  /** "A new tool-call id is not a new operation": one escalation delivered under two transport ids. */
  async newToolCallIdIsNotANewOperation(): Promise<{ calls: ToolCallOutcome[]; ticketsForOrder: number }> {
    const calls = [];
    for (const proposal of [capturedProposals.ownedEscalation, capturedProposals.redeliveredEscalation])
      calls.push(await this.call(this.escalateOrder, proposal, proposal.id));
    const ticketsForOrder = await this.dataSource.getRepository(SupportTicket).countBy({ orderId: 1002 });
    return { calls, ticketsForOrder };
  }

  private async call(tool: StructuredToolInterface, proposal: CapturedToolCall, id: string): Promise<ToolCallOutcome> {
    const message = await this.contexts.run(StorefrontContexts.customer72, () =>
      tool.invoke({ name: proposal.name, args: proposal.args, id, type: 'tool_call' }),
    );
    return toolCallOutcome(id, String(message.content));
  }
}
