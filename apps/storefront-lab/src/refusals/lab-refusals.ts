import { Injectable } from '@nestjs/common';
import { ReviewService } from '@verdict/nestjs';
import type { RefusalView } from '../runs/lab-run.js';
import { LAB_REVIEWERS, labReviewer } from '../review-lane/lab-reviewers.js';
import { labApprover } from '../session/lab-actors.js';
import { LabConversation } from '../session/lab-conversation.js';

/** The route of a refused request: which endpoint, the item or tool call it named, and who was signed in. */
export interface RefusedRequest {
  readonly path: string;
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * Puts an expected refusal of the guarded approval and review endpoints into words, for the page: the rule that
 * refused the signed-in person. Reads what the guard read (the session's conversation, the review item through
 * `ReviewService.check`); it decides nothing, the guard already has.
 */
@Injectable()
export class LabRefusals {
  constructor(
    private readonly reviews: ReviewService,
    private readonly conversation: LabConversation,
  ) {}

  /** Why `status` refused this request, or `null` when the route is not one of the guarded endpoints. */
  async explain(request: RefusedRequest, status: number): Promise<RefusalView | null> {
    if (request.path.startsWith('/api/approvals/')) return this.approval(request, status);
    if (request.path.startsWith('/api/reviews/')) return this.review(request, status);
    return null;
  }

  private approval(request: RefusedRequest, status: number): RefusalView {
    const refusal = (who: string, why: string): RefusalView => ({ endpoint: 'approval', status, who, why });
    const approver = labApprover(request.headers['x-lab-approver']);
    if (approver === null) return refusal('nobody', 'Nobody is signed in to the inbox: the endpoint answers 401.');
    const requester = this.conversation.requesterOf(request.params.toolCallId ?? '');
    if (requester === null) return refusal(approver.label, 'No call of that id was proposed in this conversation.');
    const asker = (requester.actor as { customerId?: number }).customerId;
    if (approver.tenant !== requester.tenant)
      return refusal(
        approver.label,
        `The refund was asked for at ${requester.tenant}; an approver at ${approver.tenant} cannot see that conversation, so cannot approve it.`,
      );
    if (status === 409)
      return refusal(approver.label, 'Nothing waits for an approval on this call: a receipt is decided once.');
    if (approver.customerId !== asker)
      return refusal(
        approver.label,
        `CASL lets a customer approve only their own orders: customer ${asker} asked for this refund, not customer ${approver.customerId}.`,
      );
    return refusal(approver.label, 'A kill switch is engaged for this approver: a contained approver decides nothing.');
  }

  private async review(request: RefusedRequest, status: number): Promise<RefusalView> {
    const id = request.headers['x-lab-reviewer'];
    const who = LAB_REVIEWERS.find((candidate) => candidate.id === id)?.label ?? 'nobody';
    const refusal = (why: string): RefusalView => ({ endpoint: 'review', status, who, why });
    const reviewer = labReviewer(id);
    if (reviewer === null) return refusal('Nobody is signed in to the review queue: the endpoint answers 401.');
    const check = await this.reviews.check(request.params.itemId ?? '', reviewer);
    if (check.allowed) return refusal('The review item is no longer pending.');
    return refusal(REVIEW_REFUSALS[check.outcome]);
  }
}

const REVIEW_REFUSALS = {
  own_request: 'They asked for this refund: nobody reviews their own request.',
  forbidden: "Only staff of the order's tenant may review a refund (CASL gives this person no review on the order).",
  not_found:
    "No review item of that id is in this person's tenant: it may not exist, or belong to another tenant. The endpoint answers 404 either way and gives nothing away.",
  contained: 'A kill switch is engaged for this reviewer: a contained reviewer decides nothing.',
} as const;
