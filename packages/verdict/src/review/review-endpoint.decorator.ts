import { type ExecutionContext, UseGuards, applyDecorators, createParamDecorator } from '@nestjs/common';
import {
  REVIEW_REQUEST,
  ReviewEndpointGuard,
  type ReviewRequest as ReviewRequestValue,
} from './review-endpoint.guard.js';

/**
 * Marks an application's review route: {@link ReviewEndpointGuard} authenticates the reviewer, finds the
 * item in their tenant, refuses the requester, and checks the CASL `review` ability on the bound target.
 *
 * @example
 * \@Post('reviews/:itemId/approve')
 * \@ReviewEndpoint()
 * approve(\@ReviewRequest() { item, reviewer }: ReviewRequest) {
 *   return this.reviews.approve(item.itemId, reviewer);
 * }
 */
export function ReviewEndpoint(): MethodDecorator & ClassDecorator {
  return applyDecorators(UseGuards(ReviewEndpointGuard));
}

/** The {@link ReviewRequestValue} the guard verified. */
export const ReviewRequest = createParamDecorator(
  (_data: unknown, executionContext: ExecutionContext): ReviewRequestValue =>
    executionContext.switchToHttp().getRequest()[REVIEW_REQUEST],
);
