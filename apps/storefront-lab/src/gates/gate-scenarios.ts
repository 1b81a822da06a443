import { Injectable } from '@nestjs/common';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { VerdictTools } from '@verdict/nestjs/langchain';
import {
  SHIPMENT_REFRESHES_PER_HOUR,
  ShipmentCapabilities,
  StorefrontCapability,
  SupportTicket,
  escalateOrderTool,
  refreshShipmentTool,
} from '@verdict/storefront';
import { DataSource } from 'typeorm';
import { LabCalls } from '../runs/lab-calls.js';
import type { LabActor, LabRun } from '../runs/lab-run.js';
import { labContext } from '../session/lab-actors.js';
import { LabConversation } from '../session/lab-conversation.js';

/**
 * The durable-gate labs. Both keep their state for the lab session, as production would: running the budget
 * lab again in the same hour shows the budget already spent, until the session is reset.
 */
@Injectable()
export class GateScenarios {
  private readonly refreshShipment: StructuredToolInterface;
  private readonly escalateOrder: StructuredToolInterface;

  constructor(
    private readonly dataSource: DataSource,
    private readonly shipments: ShipmentCapabilities,
    private readonly calls: LabCalls,
    private readonly conversation: LabConversation,
    tools: VerdictTools,
  ) {
    this.refreshShipment = tools.bound(refreshShipmentTool, StorefrontCapability.RefreshShipment);
    this.escalateOrder = tools.bound(escalateOrderTool, StorefrontCapability.EscalateOrder);
  }

  /** "A permission is not a budget": `count` owned shipment refreshes; the budget is two per hour. */
  async permissionIsNotABudget(actor: LabActor, orderId: number, count: number): Promise<LabRun> {
    const before = this.shipments.refreshes.length;
    const calls = [];
    for (let n = 1; n <= count; n++) {
      const mark = this.shipments.refreshes.length;
      calls.push(
        await this.calls.viaTool(
          this.refreshShipment,
          {
            tool: 'refresh_shipment',
            arguments: { orderId },
            toolCallId: this.conversation.nextToolCallId('call_ship'),
            context: labContext(actor),
            untrustedInput: `"Where is my order ${orderId}?" (asked again, ${n} of ${count})`,
            observe: () => carrierRequests(this.shipments.refreshes.length - mark),
          },
          true,
        ),
      );
    }
    const made = this.shipments.refreshes.length - before;
    return {
      actor,
      calls,
      summary: `${made} carrier request(s) for ${count} permitted proposals; budget ${SHIPMENT_REFRESHES_PER_HOUR} per hour`,
    };
  }

  /** "A new tool-call id is not a new operation": one escalation delivered under two transport ids. */
  async newToolCallIdIsNotANewOperation(actor: LabActor, orderId: number): Promise<LabRun> {
    const tickets = () => this.dataSource.getRepository(SupportTicket).countBy({ orderId });
    const calls = [];
    for (const delivery of ['first delivery', 'redelivered by the transport under a new id']) {
      const mark = await tickets();
      calls.push(
        await this.calls.viaTool(
          this.escalateOrder,
          {
            tool: 'escalate_order',
            arguments: { orderId },
            toolCallId: this.conversation.nextToolCallId('call_esc'),
            context: labContext(actor),
            untrustedInput: `"Please escalate order ${orderId}." (${delivery})`,
            observe: async () => {
              const now = await tickets();
              return `${now === mark ? 'no new ticket' : 'opened a ticket'}; support tickets for order ${orderId}: ${now}`;
            },
          },
          true,
        ),
      );
    }
    return { actor, calls, summary: `Support tickets for order ${orderId}: ${await tickets()}` };
  }
}

function carrierRequests(made: number): string {
  return made === 0 ? 'no carrier request' : `${made} carrier request${made === 1 ? '' : 's'}`;
}
