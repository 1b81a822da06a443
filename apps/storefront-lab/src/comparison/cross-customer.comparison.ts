import { Injectable } from '@nestjs/common';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { ActionContextStore } from '@verdict/nestjs';
import { VerdictTools } from '@verdict/nestjs/langchain';
import { Order, StorefrontCapability, createLookupOrderTool, manuallySecuredLookupOrder } from '@verdict/storefront';
import { DataSource } from 'typeorm';
import { LabCalls } from '../runs/lab-calls.js';
import type { CallView, ComparisonCaseView, LabActor } from '../runs/lab-run.js';
import { labContext } from '../session/lab-actors.js';
import { LabConversation } from '../session/lab-conversation.js';
import { outcomeOf } from './lab-outcome.js';

/** What the cross-customer lab is asked: who is signed in, what they typed, what the model proposed. */
export interface CrossCustomerRequest {
  readonly actor: LabActor;
  readonly request: string;
  readonly orderId: number;
}

/**
 * "Customer 72 asks for order 1001 (owned by 91)": the same proposed `lookup_order` call through (a) the
 * naive raw LangChain tool, (b) a tool secured by hand with a scoped query, (c) the Verdict bound tool.
 * The actor, the request and the proposed order id are the lab user's to change.
 */
@Injectable()
export class CrossCustomerComparison {
  private readonly naive: StructuredToolInterface;
  private readonly manual: StructuredToolInterface;
  private readonly bound: StructuredToolInterface;

  constructor(
    private readonly dataSource: DataSource,
    private readonly calls: LabCalls,
    private readonly conversation: LabConversation,
    contexts: ActionContextStore,
    tools: VerdictTools,
  ) {
    const definition = createLookupOrderTool(dataSource);
    this.naive = definition;
    this.manual = manuallySecuredLookupOrder(dataSource, () => contexts.current());
    this.bound = tools.bound(definition, StorefrontCapability.ViewOrder);
  }

  async run({ actor, request, orderId }: CrossCustomerRequest): Promise<ComparisonCaseView> {
    const order = await this.dataSource.getRepository(Order).findOneBy({ id: orderId });
    const owns = order !== null && order.customerId === actor.customerId && order.tenantId === actor.tenant;
    const through = async (path: 'naive' | 'manual' | 'verdict', tool: StructuredToolInterface) => {
      const call: CallView = await this.calls.viaTool(
        tool,
        {
          tool: 'lookup_order',
          arguments: { orderId },
          toolCallId: this.conversation.nextToolCallId(`call_lookup_${path}`),
          context: labContext(actor),
          untrustedInput: request,
          observe: () => 'none (a read): what matters is what the model saw',
        },
        path === 'verdict',
      );
      const outcome = outcomeOf(call.modelSaw, orderId, owns);
      return { path, outcome, safe: outcome !== 'leaked', call };
    };
    return {
      case: 'cross-customer',
      title: `Customer ${actor.customerId} at ${actor.tenant} asks for order ${orderId}${order === null ? ' (no such order)' : ` (owned by ${order.customerId} at ${order.tenantId})`}`,
      verdictAdded:
        'The hand-secured query is right here too; Verdict adds the decision record for every stage, and the same check for every tool bound to orders.view.',
      paths: [
        await through('naive', this.naive),
        await through('manual', this.manual),
        await through('verdict', this.bound),
      ],
    };
  }
}
