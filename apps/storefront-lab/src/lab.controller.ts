import { Controller, Get, Header, Post } from '@nestjs/common';
import { ApprovalEndpoint, ApprovalRequest, ApprovalService, type VerifiedApprovalRequest } from '@verdict/nestjs';
import { CrossCustomerComparison } from './comparison/cross-customer.comparison.js';
import { GateScenarios } from './gates/gate-scenarios.js';
import { ConfirmationScenario } from './approvals/confirmation.scenario.js';
import { LAB_PAGE } from './page/lab-page.js';
import { DestinationReleaseScenario } from './releases/destination-release.scenario.js';

/** The lab's page and its JSON endpoints. */
@Controller()
export class LabController {
  constructor(
    private readonly crossCustomer: CrossCustomerComparison,
    private readonly gates: GateScenarios,
    private readonly confirmation: ConfirmationScenario,
    private readonly destinationRelease: DestinationReleaseScenario,
    private readonly approvals: ApprovalService,
  ) {}

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  page(): string {
    return LAB_PAGE;
  }

  /** Naive vs manually secured vs Verdict, for customer 72 asking for 91's order 1001 and their own 1002. */
  @Get('api/labs/cross-customer')
  crossCustomerComparison() {
    return this.crossCustomer.run();
  }

  /** Three owned shipment refreshes against a budget of two per hour. */
  @Get('api/labs/budget')
  permissionIsNotABudget() {
    return this.gates.permissionIsNotABudget();
  }

  /** A refund approved once: changed arguments asked again, the exact call executed once, the replay refused. */
  @Get('api/labs/confirmation')
  verifiedConfirmation() {
    return this.confirmation.run();
  }

  /** Customer 72 approves their own pending call (the guard finds the receipt server-side; its id never comes from the request). */
  @Post('api/labs/approvals/:toolCallId/approve')
  @ApprovalEndpoint()
  approve(@ApprovalRequest() { challenge, approver }: VerifiedApprovalRequest) {
    return this.approvals.approve(challenge.receiptId, challenge.toolCallId, approver.id);
  }

  /** One escalation delivered under two tool-call ids. */
  @Get('api/labs/duplicate-delivery')
  newToolCallIdIsNotANewOperation() {
    return this.gates.newToolCallIdIsNotANewOperation();
  }

  /** Customer 72's profile released to `ollama@local-machine` (permitted, e-mail redacted) and to `ollama@remote-endpoint` (denied). */
  @Get('api/labs/release')
  providerNameIsNotATrustBoundary() {
    return this.destinationRelease.run();
  }
}
