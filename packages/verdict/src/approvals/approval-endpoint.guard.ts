import { CanActivate, ConflictException, ExecutionContext, ForbiddenException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { subject } from '@casl/ability';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { MODULE_OPTIONS_TOKEN } from '../verdict.module-definition.js';
import type { VerdictModuleOptions } from '../verdict-module-options.interface.js';
import type { ApprovalChallenge } from './approval-challenge.js';
import type { Approver } from './approval-endpoint-hooks.interface.js';
import { ApprovalService } from './approval.service.js';

/** What an approval route handler receives from the guard: the server-side challenge and the approver. */
export interface ApprovalRequest {
  readonly challenge: ApprovalChallenge;
  readonly approver: Approver;
}

/** Where the guard leaves the {@link ApprovalRequest} on the request object. */
export const APPROVAL_REQUEST = Symbol('VerdictApprovalRequest');

/**
 * Protects an application's approve/reject route. In order: an authenticated approver (401), exactly one
 * pending receipt for the tool call (409), the approver's access to its conversation (403), and the
 * approver's CASL ability to `approve` the subject `'Approval'` built from trusted receipt data — the
 * capability plus the capability's `subject` facts (403). The receipt id never comes from the request.
 */
@Injectable()
export class ApprovalEndpointGuard implements CanActivate {
  constructor(
    private readonly approvals: ApprovalService,
    @Inject(MODULE_OPTIONS_TOKEN) private readonly options: VerdictModuleOptions,
  ) {}

  async canActivate(executionContext: ExecutionContext): Promise<boolean> {
    const hooks = this.options.approvalEndpoint;
    if (hooks === undefined) throw new VerdictConfigurationError('@ApprovalEndpoint() needs `approvalEndpoint` hooks in VerdictModule.forRoot.');
    const approver = await hooks.approver(executionContext);
    if (approver === null) throw new UnauthorizedException();
    const request = executionContext.switchToHttp().getRequest();
    const toolCallId = hooks.toolCallId?.(executionContext) ?? request.params?.toolCallId;
    const challenge = typeof toolCallId === 'string' ? await this.approvals.challengeForToolCall(toolCallId) : null;
    if (challenge === null) throw new ConflictException('There is no single pending approval for this tool call.');
    if (!(await hooks.canAccessToolCall(approver, challenge.toolCallId, executionContext))) throw new ForbiddenException();
    const ability = await this.options.abilityFactory.createForContext(approver.context);
    const approval = subject('Approval', { ...(challenge.subject ?? {}), capability: challenge.capability });
    if (!ability.can('approve', approval as never)) throw new ForbiddenException();
    request[APPROVAL_REQUEST] = { challenge, approver } satisfies ApprovalRequest;
    return true;
  }
}
