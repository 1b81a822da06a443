import { expect } from '@jest/globals';
import type { Type } from '@nestjs/common';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalService,
  type AuthorizedAction,
  type CapabilityDefinition,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
} from '@verdict/nestjs';
import { archiveCapability } from '../approvals/archive.fixture.js';
import { documentsFixture } from '../pipeline/documents.fixture.js';

/**
 * The documents fixture (and `documents.archive`, which requires confirmation) booted with one runtime's
 * Verdict module (and `more` capabilities); `tools` is that module's tool factory.
 */
export async function bootWithRuntime<T>(runtimeModule: Type, toolsOf: Type<T>, more: CapabilityDefinition[] = []) {
  const fixture = documentsFixture();
  const archived: AuthorizedAction[] = [];
  const evidence = new InMemoryEvidenceRecorder();
  const { moduleRef } = await fixture.boot({
    evidence,
    capabilities: [archiveCapability(fixture, archived), ...more],
    approvals: new InMemoryApprovalReceiptStore(),
    imports: [runtimeModule],
  });
  const approvals = moduleRef.get(ApprovalService);
  /** A human approves, in Verdict, the pending receipt `requester`'s tool call holds. */
  const approveInVerdict = async (toolCallId: string, requester: ActionContext) => {
    const challenge = await approvals.challengeForToolCall(toolCallId, requester);
    expect(challenge).not.toBeNull();
    const transition = await approvals.approve(challenge!.receiptId, toolCallId, 'customer:alice');
    expect(transition).toMatchObject({ outcome: 'approved' });
  };
  return {
    fixture,
    archived,
    evidence,
    approvals,
    tools: moduleRef.get(toolsOf, { strict: false }),
    contexts: moduleRef.get(ActionContextStore),
    approveInVerdict,
  };
}

/** The public answer the model reads for a `capability` refused with `decision` (the fixture's public message). */
export function notExecuted(capability: string, decision: string) {
  return { status: 'not_executed', capability, decision, message: 'Not done.' };
}
