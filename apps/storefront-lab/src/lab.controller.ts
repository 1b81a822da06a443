import { Controller, Get, Header } from '@nestjs/common';
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
