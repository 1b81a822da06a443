import { describe, expect, it } from '@jest/globals';
import {
  ActionContextStore,
  ApprovalService,
  type AuthorizedAction,
  type DecisionRecord,
  EvidenceWriteFailedError,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  type Proposal,
  VerdictService,
} from '@verdict/nestjs';
import { VerdictPipeline } from '../../packages/verdict/src/pipeline/verdict-pipeline.js';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';
import { archiveCapability } from './archive.fixture.js';

/** Evidence whose writes fail while `down`: a database outage as a proposal that needs confirmation meets it. */
class DownableEvidenceRecorder extends InMemoryEvidenceRecorder {
  down = false;

  override async recordDecision(record: DecisionRecord): Promise<void> {
    if (this.down) throw new Error('evidence database unavailable');
    await super.recordDecision(record);
  }
}

async function setup() {
  const fixture = documentsFixture();
  const archived: AuthorizedAction[] = [];
  const evidence = new DownableEvidenceRecorder();
  const receipts = new InMemoryApprovalReceiptStore();
  const { moduleRef } = await fixture.boot({
    capabilities: [archiveCapability(fixture, archived)],
    evidence,
    approvals: receipts,
  });
  const verdict = moduleRef.get(VerdictService);
  const pipeline = moduleRef.get(VerdictPipeline);
  const approvals = moduleRef.get(ApprovalService);
  const as = <T>(fn: () => Promise<T>) => moduleRef.get(ActionContextStore).run(alice, fn);
  const archive = (toolCallId: string): Proposal => ({
    capability: 'documents.archive',
    arguments: { id: 1 },
    toolCallId,
  });
  const pendingOf = (toolCallId: string) => approvals.challengeForToolCall(toolCallId, alice);
  return { verdict, pipeline, approvals, archived, evidence, receipts, as, archive, pendingOf };
}

/** `execute`, and a runtime's asking (ADR 0127): both issue the pending receipt through the same gate. */
const ENTRIES = {
  execute: ({ verdict }: Awaited<ReturnType<typeof setup>>, proposal: Proposal) => verdict.execute(proposal),
  ask: ({ pipeline }: Awaited<ReturnType<typeof setup>>, proposal: Proposal) => pipeline.ask(proposal),
} as const;

describe('a pending approval receipt is issued only after the evidence before it is written', () => {
  for (const [entry, run] of Object.entries(ENTRIES)) {
    it(`attack (${entry}): with evidence down, no receipt is issued and the run stops with EvidenceWriteFailedError`, async () => {
      const ctx = await setup();
      const { as, archive, evidence, pendingOf, archived } = ctx;
      evidence.down = true;

      await expect(as(() => run(ctx, archive('call_9')))).rejects.toBeInstanceOf(EvidenceWriteFailedError);

      // No question for an approver that evidence never saw asked.
      expect(await pendingOf('call_9')).toBeNull();
      expect(evidence.decisions()).toHaveLength(0);
      expect(archived).toHaveLength(0);
    });

    it(`control (${entry}): with evidence up, the receipt is issued, its question recorded, and approval executes it`, async () => {
      const ctx = await setup();
      const { as, archive, evidence, pendingOf, approvals, verdict, archived } = ctx;

      const asked = await as(() => run(ctx, archive('call_9')));

      expect(asked).toMatchObject({ executed: false, decision: { disposition: 'require_confirmation' } });
      const challenge = await pendingOf('call_9');
      expect(challenge).not.toBeNull();
      const asking = evidence.decisions().filter((r) => r.approvalPhase === 'proposal_validation');
      expect(asking.map((r) => `${r.disposition}:${r.approvalOutcome}`)).toEqual(['require_confirmation:not_found']);
      // The evidence before the receipt (the proposal's authorization) was written with it, in order.
      expect(evidence.decisions().map((r) => r.sequence)).toEqual(evidence.decisions().map((_, index) => index));

      await approvals.approve(challenge!.receiptId, 'call_9', 'customer:alice');
      const executed = await as(() => verdict.execute(archive('call_9'), { explicitApproval: true }));
      expect(executed).toMatchObject({ executed: true });
      expect(archived).toHaveLength(1);
    });
  }

  it('attack: after the outage, the call that failed has no receipt to approve and asks again, recorded', async () => {
    const { as, archive, evidence, pendingOf, verdict, archived } = await setup();
    evidence.down = true;
    await expect(as(() => verdict.execute(archive('call_9')))).rejects.toBeInstanceOf(EvidenceWriteFailedError);
    evidence.down = false;

    // Resuming with an explicit approval finds nothing approved: it is asked (and recorded) now, nothing executes.
    const resumed = await as(() => verdict.execute(archive('call_9'), { explicitApproval: true }));

    expect(resumed).toMatchObject({ executed: false, decision: { disposition: 'require_confirmation' } });
    expect(archived).toHaveLength(0);
    expect(await pendingOf('call_9')).not.toBeNull();
    const asking = evidence.decisions().filter((r) => r.approvalPhase === 'proposal_validation');
    expect(asking.map((r) => r.approvalOutcome)).toEqual(['not_found']);
  });
});
