import { Injectable, NotFoundException } from '@nestjs/common';
import { type ClaimResolutionChoice, ExecutionClaimsService } from '@verdict/nestjs';
import { EvidenceTrail } from '../runs/evidence-trail.js';
import { LabCalls } from '../runs/lab-calls.js';
import type { CallView, ClaimResolutionView, LabActor } from '../runs/lab-run.js';
import { labContext } from '../session/lab-actors.js';
import { LabConversation } from '../session/lab-conversation.js';
import { CarrierLabelCapabilities, CarrierTimeout, SEND_LABEL } from './carrier-label.capabilities.js';

/** Who resolved a claim from the page: the lab's stand-in for the operator identity the CLI takes from the OS user. */
export const LAB_OPERATOR_IDENTITY = 'lab-session-operator';

/**
 * The claims panel's actions: book a shipping label (the carrier times out, the claim stays `indeterminate`)
 * and resolve a claim as an operator would with `verdict claims resolve <id> completed|retryable`.
 */
@Injectable()
export class ClaimsPanelScenario {
  constructor(
    private readonly calls: LabCalls,
    private readonly conversation: LabConversation,
    private readonly labels: CarrierLabelCapabilities,
    private readonly claims: ExecutionClaimsService,
    private readonly trail: EvidenceTrail,
  ) {}

  /** One `orders.send_label` call; a carrier timeout is shown as what it is, an executor fault. */
  async sendLabel(actor: LabActor, orderId: number): Promise<CallView> {
    const call = {
      tool: SEND_LABEL,
      arguments: { orderId },
      toolCallId: this.conversation.nextToolCallId('call_send_label'),
      context: labContext(actor),
      untrustedInput: `Customer ${actor.customerId}: "Please book the shipping label for order ${orderId}."`,
      observe: () => `labels booked for order ${orderId}: ${this.labels.labels.filter((id) => id === orderId).length}`,
    };
    try {
      return await this.calls.viaVerdict(call);
    } catch (error) {
      if (!(error instanceof CarrierTimeout)) throw error;
      return {
        toolCallId: call.toolCallId,
        untrustedInput: call.untrustedInput,
        proposal: { tool: call.tool, arguments: call.arguments },
        outcome: 'executor threw',
        // Verdict decided before the executor threw: the stages up to the claim are in the evidence.
        stages: await this.trail.latestOf(call.toolCallId),
        modelSaw: `${error.name}: ${error.message}`,
        sideEffect: `${call.observe()} (unknown: the carrier may have booked it)`,
      };
    }
  }

  /** `verdict claims resolve <id> <choice> --by <by> --reason <reason> [--force]`. */
  async resolve(
    claimId: string,
    input: { resolution: ClaimResolutionChoice; by: string; reason: string; force: boolean },
  ): Promise<ClaimResolutionView> {
    const resolution = await this.claims.resolve(
      claimId,
      input.resolution,
      input.by,
      input.reason,
      input.force,
      LAB_OPERATOR_IDENTITY,
    );
    if (resolution.outcome === 'resolved')
      return { outcome: 'resolved', from: resolution.from, status: resolution.claim.status };
    if (resolution.outcome === 'not_found') throw new NotFoundException(`no execution claim ${claimId}`);
    return { outcome: resolution.outcome, from: null, status: resolution.claim.status };
  }
}
