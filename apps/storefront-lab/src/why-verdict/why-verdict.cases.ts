import { Inject, Injectable } from '@nestjs/common';
import type { StructuredToolInterface } from '@langchain/core/tools';
import {
  ActionContextStore,
  ApprovalService,
  VERDICT_MODULE_OPTIONS,
  type VerdictModuleOptions,
} from '@verdict/nestjs';
import { VerdictTools } from '@verdict/nestjs/langchain';
import {
  Order,
  type Refund,
  RefundCapabilities,
  StorefrontCapability,
  createCancelOrderTool,
  storefrontContext,
} from '@verdict/storefront';
import { DataSource } from 'typeorm';
import { InjectedReviewScenario } from '../provenance/injected-review.scenario.js';
import { LabCalls } from '../runs/lab-calls.js';
import type { CallView, ComparisonCaseView } from '../runs/lab-run.js';
import { LAB_APPROVERS, LAB_CONVERSATION } from '../session/lab-actors.js';
import { LabConversation } from '../session/lab-conversation.js';
import { ConcurrentWrite } from './concurrent-write.js';
import { handConfirmedRefund, handSecuredCancelOrder } from './hand-secured-tools.js';

/** The "why Verdict, not a scoped query" cases that exist today. */
export const WHY_VERDICT_CASES = [
  'forgotten-tool',
  'swapped-resource',
  'replayed-approval',
  'injected-review',
] as const;
export type WhyVerdictCase = (typeof WHY_VERDICT_CASES)[number];

/** Every case runs as customer 72 of acme, who owns the placed order 1002; 91 owns 1001. */
const customer72 = storefrontContext(72, 'acme', LAB_CONVERSATION);

/**
 * Cases where a tool secured by hand fails and Verdict does not. Each case runs the hand-secured path and
 * the Verdict path on the same seeded orders (the orders are put back between paths, so each path starts
 * from the same world).
 */
@Injectable()
export class WhyVerdictCases {
  private readonly boundCancel: StructuredToolInterface;

  constructor(
    private readonly dataSource: DataSource,
    private readonly contexts: ActionContextStore,
    private readonly calls: LabCalls,
    private readonly approvals: ApprovalService,
    private readonly refunds: RefundCapabilities,
    private readonly conversation: LabConversation,
    @Inject(VERDICT_MODULE_OPTIONS) private readonly options: VerdictModuleOptions,
    private readonly injectedReview: InjectedReviewScenario,
    tools: VerdictTools,
  ) {
    this.boundCancel = tools.bound(createCancelOrderTool(dataSource), StorefrontCapability.CancelOrder);
  }

  run(which: WhyVerdictCase): Promise<ComparisonCaseView> {
    if (which === 'forgotten-tool') return this.forgottenTool();
    if (which === 'swapped-resource') return this.swappedResource();
    if (which === 'injected-review') return this.injectedReview.compare();
    return this.replayedApproval();
  }

  /** The team scoped `lookup_order` by hand but shipped `cancel_order` with `findOneBy({ id })`. */
  private async forgottenTool(): Promise<ComparisonCaseView> {
    const untrustedInput = 'Customer 72: "Cancel order 1001 for me."';
    const call = (id: string) => ({
      tool: 'cancel_order',
      arguments: { orderId: 1001 },
      toolCallId: this.conversation.nextToolCallId(id),
      context: customer72,
      untrustedInput,
      observe: () => this.statusOf(1001),
    });
    const manual = await this.restoring(() =>
      this.calls.viaTool(createCancelOrderTool(this.dataSource), call('call_cancel_hand'), false),
    );
    const verdict = await this.restoring(() => this.calls.viaTool(this.boundCancel, call('call_cancel_verdict'), true));
    return {
      case: 'forgotten-tool',
      title: 'A second tool the developer forgot to scope',
      verdictAdded:
        'Authorization lives on the capability, not in each handler: a bound tool cannot run without the CASL check, and `verdict validate` lists tools that are not bound.',
      paths: [
        {
          path: 'manual',
          outcome: "cancelled 91's order",
          safe: !manual.sideEffect.includes('cancelled'),
          call: manual,
        },
        { path: 'verdict', outcome: verdict.outcome, safe: !verdict.sideEffect.includes('cancelled'), call: verdict },
      ],
    };
  }

  /** Order 1002 is moved to customer 91 after the ownership check and before the write. */
  private async swappedResource(): Promise<ComparisonCaseView> {
    const untrustedInput = 'Customer 72: "Cancel my order 1002." (meanwhile support moves 1002 to customer 91)';
    const swap = async () => void (await this.dataSource.getRepository(Order).update({ id: 1002 }, { customerId: 91 }));
    const call = (id: string) => ({
      tool: 'cancel_order',
      arguments: { orderId: 1002 },
      toolCallId: this.conversation.nextToolCallId(id),
      context: customer72,
      untrustedInput,
      observe: () => this.statusOf(1002),
    });
    const handTool = handSecuredCancelOrder(this.dataSource, () => this.contexts.current(), swap);
    const manual = await this.restoring(() => this.calls.viaTool(handTool, call('call_swap_hand'), false));
    const verdictCall = call('call_swap_verdict');
    (this.options.abilityFactory as ConcurrentWrite).arm(swap);
    const verdict = await this.restoring(() => this.calls.viaTool(this.boundCancel, verdictCall, true));
    const cancelled = (view: CallView) => view.sideEffect.includes('cancelled');
    return {
      case: 'swapped-resource',
      title: 'The resource swapped between check and execution',
      verdictAdded:
        'Verdict refreshes the target by primary key after the check and authorizes it again before executing: the order that now belongs to 91 is denied at execution.',
      paths: [
        {
          path: 'manual',
          outcome: cancelled(manual) ? "cancelled 91's order" : manual.outcome,
          safe: !cancelled(manual),
          call: manual,
        },
        { path: 'verdict', outcome: verdict.outcome, safe: !cancelled(verdict), call: verdict },
      ],
    };
  }

  /** The customer confirmed one 500-cent refund; the confirmed call is delivered twice. */
  private async replayedApproval(): Promise<ComparisonCaseView> {
    const untrustedInput = 'Customer 72: "Yes, refund 500 cents on 1002." (the confirmed call is then delivered twice)';
    const handRefunds: Refund[] = [];
    const handTool = handConfirmedRefund(() => this.contexts.current(), handRefunds);
    const args = { orderId: 1002, amountCents: 500 };
    const handCall = (confirmationToken?: string) => ({
      tool: 'refund_order',
      arguments: confirmationToken === undefined ? args : { ...args, confirmationToken },
      toolCallId: this.conversation.nextToolCallId('call_refund_hand'),
      context: customer72,
      untrustedInput,
      observe: () => `${handRefunds.length} refund(s) made`,
    });
    const asked = await this.calls.viaTool(handTool, handCall(), false);
    const token = (JSON.parse(asked.modelSaw) as { confirmationToken: string }).confirmationToken;
    await this.calls.viaTool(handTool, handCall(token), false);
    const manual = await this.calls.viaTool(handTool, handCall(token), false);

    const before = this.refunds.refunds.length;
    const toolCallId = this.conversation.nextToolCallId('call_refund_verdict');
    const verdictCall = {
      tool: StorefrontCapability.RefundOrder,
      arguments: args,
      toolCallId,
      context: customer72,
      untrustedInput,
      observe: () => `${this.refunds.refunds.length - before} refund(s) made`,
    };
    await this.calls.viaVerdict(verdictCall);
    const challenge = await this.approvals.challengeForToolCall(toolCallId, customer72);
    if (challenge !== null) await this.approvals.approve(challenge.receiptId, toolCallId, LAB_APPROVERS[0].id);
    await this.calls.viaVerdict(verdictCall, { explicitApproval: true });
    const verdict = await this.calls.viaVerdict(verdictCall, { explicitApproval: true });
    return {
      case: 'replayed-approval',
      title: 'An approval replayed',
      verdictAdded:
        'The approval is a receipt bound to this actor, order version and arguments, consumed atomically on execution: the replay finds nothing to consume and is denied.',
      paths: [
        {
          path: 'manual',
          outcome: `refunded ${handRefunds.length} times`,
          safe: handRefunds.length === 1,
          call: manual,
        },
        {
          path: 'verdict',
          outcome: `${verdict.outcome} (refunded ${this.refunds.refunds.length - before} time)`,
          safe: this.refunds.refunds.length - before === 1,
          call: verdict,
        },
      ],
    };
  }

  private async statusOf(orderId: number): Promise<string> {
    const order = await this.dataSource.getRepository(Order).findOneByOrFail({ id: orderId });
    return `order ${orderId}: ${order.status}, owned by customer ${order.customerId}`;
  }

  /** Runs `path`, then puts the seeded orders back as they were. */
  private async restoring<T>(path: () => Promise<T>): Promise<T> {
    const orders = this.dataSource.getRepository(Order);
    const saved = await orders.find();
    try {
      return await path();
    } finally {
      for (const { id, customerId, status } of saved) await orders.update({ id }, { customerId, status });
    }
  }
}
