import { ExecutionContext, UseGuards, applyDecorators, createParamDecorator } from '@nestjs/common';
import {
  APPROVAL_REQUEST,
  ApprovalEndpointGuard,
  type ApprovalRequest as ApprovalRequestValue,
} from './approval-endpoint.guard.js';

/**
 * Marks an application's approve/reject route: {@link ApprovalEndpointGuard} authenticates the approver,
 * finds the pending call server-side, and checks conversation access and the CASL `approve` ability.
 *
 * @example
 * \@Post('approvals/:toolCallId/approve')
 * \@ApprovalEndpoint()
 * approve(\@ApprovalRequest() { challenge, approver }: ApprovalRequest) {
 *   return this.approvals.approve(challenge.receiptId, challenge.toolCallId, approver.id);
 * }
 */
export function ApprovalEndpoint(): MethodDecorator & ClassDecorator {
  return applyDecorators(UseGuards(ApprovalEndpointGuard));
}

/** The {@link ApprovalRequestValue} the guard verified: use its receipt id, never one from the request body. */
export const ApprovalRequest = createParamDecorator(
  (_data: unknown, executionContext: ExecutionContext): ApprovalRequestValue => {
    return executionContext.switchToHttp().getRequest()[APPROVAL_REQUEST];
  },
);
