import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  NotFoundException,
  UnauthorizedException,
} from '@nestjs/common';
import type { Approver } from '../approvals/approval-endpoint-hooks.interface.js';
import { isAuthenticatedApprover } from '../approvals/approver-id.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { assertHooks } from '../shared/hooks-object.js';
import { REVIEW_ENDPOINT_HOOKS } from './review-endpoint-hooks.interface.js';
import { REVIEW_OPTIONS, type ReviewOptions } from './review-options.interface.js';
import { type PendingReview, pendingReviewOf } from './pending-review.js';
import { isItemId } from './review-item-rules.js';
import { ReviewService } from './review.service.js';

/** What a review route handler receives from the guard: the item (trusted data only) and the reviewer. */
export interface ReviewRequest {
  readonly item: PendingReview;
  readonly reviewer: Approver;
}

/** Where the guard leaves the {@link ReviewRequest} on the request object. */
export const REVIEW_REQUEST = Symbol('VerdictReviewRequest');

/**
 * Protects an application's review routes (list, approve, reject). In order: an authenticated reviewer (401: the
 * `reviewer` hook answered `null`, `undefined` or anything but an object with a non-blank string `id`); the item named
 * by the route, in the reviewer's tenant (404); a reviewer who is not the requester (403); the reviewer's CASL ability
 * to `review` the bound target (403); and no kill switch engaged for the reviewer's actor (403).
 * `ReviewService.approve` and `reject` check the same again, and an approval also the item's switches (capability,
 * tenant, requester; answered `contained`). At boot, the `reviewEndpoint` given must be hooks (`assertHooks`).
 */
@Injectable()
export class ReviewEndpointGuard implements CanActivate {
  constructor(
    private readonly reviews: ReviewService,
    @Inject(REVIEW_OPTIONS) private readonly options: ReviewOptions,
  ) {
    assertHooks(options.reviewEndpoint, 'reviewEndpoint', REVIEW_ENDPOINT_HOOKS, 'reviewEndpoint: { reviewer }');
  }

  async canActivate(executionContext: ExecutionContext): Promise<boolean> {
    const hooks = this.options.reviewEndpoint;
    if (hooks === undefined)
      throw new VerdictConfigurationError('@ReviewEndpoint() needs `reviewEndpoint` hooks in VerdictModule.forRoot.');
    const reviewer = await hooks.reviewer(executionContext);
    // Nobody (`null`, `undefined`), or an answer without a non-blank id, is no authenticated reviewer.
    if (!isAuthenticatedApprover(reviewer)) throw new UnauthorizedException();
    const request = executionContext.switchToHttp().getRequest();
    const itemId = hooks.itemId?.(executionContext) ?? request.params?.itemId;
    // A blank or non-string id names no item: 404, as an unknown one (never the service's configuration error).
    if (!isItemId(itemId)) throw new NotFoundException(NO_ITEM);
    const check = await this.reviews.check(itemId, reviewer);
    if (!check.allowed) {
      if (check.outcome === 'not_found') throw new NotFoundException(NO_ITEM);
      throw new ForbiddenException();
    }
    request[REVIEW_REQUEST] = { item: pendingReviewOf(check.item), reviewer } satisfies ReviewRequest;
    return true;
  }
}

const NO_ITEM = 'There is no such review item in your tenant.';
