import {
  CanActivate,
  ConflictException,
  ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { ActionContext } from '../context/action-context.js';
import { APPROVAL_OPTIONS, type ApprovalOptions } from './approval-options.interface.js';
import type { ApprovalChallenge } from './approval-challenge.js';
import { APPROVAL_ENDPOINT_HOOKS, type Approver } from './approval-endpoint-hooks.interface.js';
import { isAuthenticatedApprover } from './approver-id.js';
import { assertHooks } from '../shared/hooks-object.js';
import { ApprovalService } from './approval.service.js';
import { DecisionContainment } from '../containment/decision-containment.js';
import { deciderRefusal } from '../containment/decider-refusal.js';
import { approvalSubject } from './approval-subject.js';

/** What an approval route handler receives from the guard: the server-side challenge, the approver, and whose call it is. */
export interface ApprovalRequest {
  readonly challenge: ApprovalChallenge;
  readonly approver: Approver;
  /** The action context the tool call was proposed in (the `requester` hook's answer): resume that run. */
  readonly requester: ActionContext;
}

/** Where the guard leaves the {@link ApprovalRequest} on the request object. */
export const APPROVAL_REQUEST = Symbol('VerdictApprovalRequest');

/**
 * Protects an application's approve/reject route. In order: an authenticated approver (401: the `approver` hook
 * answered `null`, `undefined` or anything but an object with a non-blank string `id`); the
 * requester — the action context the tool call was proposed in, from the `requester` hook (default: the
 * approver's own context) — known (403); the approver's access to the requester's conversation (403);
 * exactly one pending receipt of the tool call asked for by that requester in that conversation (409);
 * the approver's CASL ability to `approve` the subject `'Approval'` built from trusted receipt data —
 * the capability plus the capability's `subject` facts (403); and no kill switch engaged for the approver's
 * actor (403; pass `{ approver: approver.context, requester }` to `ApprovalService.approve` so the capability's,
 * tenant's and requester's switches refuse the approval too). The receipt id never comes from the
 * request, and a colliding tool-call id of another actor or conversation is never found. At boot, the
 * `approvalEndpoint` given must be hooks (`assertHooks`), and one with a `requester` hook a four-parameter access check.
 */
@Injectable()
export class ApprovalEndpointGuard implements CanActivate {
  constructor(
    private readonly approvals: ApprovalService,
    private readonly containment: DecisionContainment,
    @Inject(APPROVAL_OPTIONS) private readonly options: ApprovalOptions,
  ) {
    assertHooks(
      options.approvalEndpoint,
      'approvalEndpoint',
      APPROVAL_ENDPOINT_HOOKS,
      'approvalEndpoint: { approver, canAccessToolCall }',
    );
    const hooks = options.approvalEndpoint;
    // A requester hook scopes the lookup to someone else's conversation; an access check written before it
    // existed (three parameters) would answer "may this approver see *a* conversation with this id?" instead.
    if (hooks?.requester !== undefined && hooks.canAccessToolCall.length < 4) {
      throw new VerdictConfigurationError(
        'approvalEndpoint has a requester hook, but its canAccessToolCall declares fewer than four parameters: check the approver against the fourth, the requester (whose conversation the approval is about).',
      );
    }
  }

  async canActivate(executionContext: ExecutionContext): Promise<boolean> {
    const hooks = this.options.approvalEndpoint;
    if (hooks === undefined)
      throw new VerdictConfigurationError(
        '@ApprovalEndpoint() needs `approvalEndpoint` hooks in VerdictModule.forRoot.',
      );
    const approver = await hooks.approver(executionContext);
    // Nobody (`null`, `undefined`), or an answer without a non-blank id, is no authenticated approver.
    if (!isAuthenticatedApprover(approver)) throw new UnauthorizedException();
    const request = executionContext.switchToHttp().getRequest();
    const toolCallId = hooks.toolCallId?.(executionContext) ?? request.params?.toolCallId;
    if (typeof toolCallId !== 'string' || toolCallId === '') throw new ConflictException(NO_SINGLE_PENDING);
    const requester =
      hooks.requester === undefined ? approver.context : await hooks.requester(approver, toolCallId, executionContext);
    if (requester === null || requester === undefined) throw new ForbiddenException();
    if (!(await hooks.canAccessToolCall(approver, toolCallId, executionContext, requester)))
      throw new ForbiddenException();
    const challenge = await this.approvals.challengeForToolCall(toolCallId, requester);
    if (challenge === null) throw new ConflictException(NO_SINGLE_PENDING);
    const refusal = await deciderRefusal(approver.context, 'approve', approvalSubject(challenge), {
      abilityFactory: this.options.abilityFactory,
      containment: this.containment,
    });
    if (refusal !== null) throw new ForbiddenException();
    request[APPROVAL_REQUEST] = { challenge, approver, requester } satisfies ApprovalRequest;
    return true;
  }
}

const NO_SINGLE_PENDING = 'There is no single pending approval for this tool call in this conversation.';
