import { Inject, Injectable } from '@nestjs/common';
import {
  ActionContextStore,
  ApprovalService,
  type ExecutionResult,
  PublicMessage,
  VerdictService,
  publicAnswer,
} from '@verdict/nestjs';
import { RefundCapabilities, StorefrontCapability, StorefrontContexts } from '@verdict/storefront';

/** One step of the confirmation lab. */
export interface ConfirmationStep {
  readonly step: string;
  readonly outcome: string;
  /** What the model read back, for proposal steps. */
  readonly modelSaw?: string;
}

/**
 * The confirmation lab, as customer 72: the model proposes a refund; the customer approves that exact
 * proposal; the same tool call with changed arguments is not covered by the approval; the approved call
 * executes once (the resumed run carries the explicit approval); its replay is refused.
 */
@Injectable()
export class ConfirmationScenario {
  private runs = 0;

  constructor(
    private readonly verdict: VerdictService,
    private readonly approvals: ApprovalService,
    private readonly contexts: ActionContextStore,
    private readonly refunds: RefundCapabilities,
    @Inject(PublicMessage) private readonly publicMessage: string,
  ) {}

  async run(): Promise<{ toolCallId: string; steps: ConfirmationStep[]; refundsMade: number }> {
    const toolCallId = `call_refund_1002_${++this.runs}`;
    const before = this.refunds.refunds.length;
    const propose = (amountCents: number, explicitApproval: boolean) =>
      this.contexts.run(StorefrontContexts.customer72, () =>
        this.verdict.execute(
          { capability: StorefrontCapability.RefundOrder, arguments: { orderId: 1002, amountCents }, toolCallId },
          { explicitApproval },
        ),
      );
    const steps: ConfirmationStep[] = [
      this.step('the model proposes a 500-cent refund of order 1002', await propose(500, false)),
    ];
    const challenge = await this.approvals.challengeForToolCall(toolCallId, StorefrontContexts.customer72);
    const approval =
      challenge === null
        ? { outcome: 'no pending approval' }
        : await this.approvals.approve(challenge.receiptId, toolCallId, 'customer:72');
    steps.push({ step: `customer 72 approves "${challenge?.description ?? '?'}"`, outcome: approval.outcome });
    steps.push(
      this.step('the same tool call, now for 50,000 cents, with an explicit approval', await propose(50_000, true)),
    );
    steps.push(this.step('the approved call, resumed with an explicit approval', await propose(500, true)));
    steps.push(this.step('the approved call, replayed', await propose(500, true)));
    return { toolCallId, steps, refundsMade: this.refunds.refunds.length - before };
  }

  private step(step: string, result: ExecutionResult): ConfirmationStep {
    return {
      step,
      outcome: result.executed ? 'executed' : result.decision.disposition,
      modelSaw: publicAnswer(result, this.publicMessage),
    };
  }
}
