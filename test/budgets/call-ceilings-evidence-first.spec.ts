import { describe, expect, it } from '@jest/globals';
import {
  ActionContextStore,
  type ActionContext,
  type CallCeilings,
  type DecisionRecord,
  EvidenceWriteFailedError,
  InMemoryBudgetStore,
  InMemoryEvidenceRecorder,
  VerdictService,
} from '@verdict/nestjs';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';

/** A recorder whose every write fails, as a full disk or a lost database would. */
class FailingRecorder extends InMemoryEvidenceRecorder {
  override recordDecisions(): Promise<void> {
    return Promise.reject(new Error('evidence database unreachable'));
  }
}

const inConversation: ActionContext = { ...alice, metadata: { conversationId: 'c-1' } };

async function setup(options: { callCeilings?: CallCeilings; evidence?: InMemoryEvidenceRecorder }) {
  const fixture = documentsFixture();
  // One instant for the whole test: the ceilings' window (a UTC day) cannot roll over between two calls.
  const now = new Date();
  const { moduleRef } = await fixture.boot({ budgets: new InMemoryBudgetStore(), clock: () => now, ...options });
  const contexts = moduleRef.get(ActionContextStore);
  const verdict = moduleRef.get(VerdictService);
  const read = () =>
    contexts.run(inConversation, () => verdict.execute({ capability: 'documents.read', arguments: { id: 1 } }));
  return { read, executions: fixture.executions, close: () => moduleRef.close() };
}

const stages = (records: readonly DecisionRecord[]) => records.map((r) => `${r.stage}:${r.disposition}`);

// Counting a call against its conversation's ceiling (step 0a) is not a step the run's evidence answers for: it
// records nothing. The write before the first gate the evidence does answer for (here the executor) still stops
// the action when it fails (docs/architecture.md, "Evidence").
describe('call ceilings and the evidence written before the action', () => {
  it('attack: with a ceiling counting the call, evidence that cannot be written still stops the action', async () => {
    const { read, executions, close } = await setup({
      callCeilings: { toolCalls: 50 },
      evidence: new FailingRecorder(),
    });
    try {
      await expect(read()).rejects.toBeInstanceOf(EvidenceWriteFailedError);
      expect(executions).toHaveLength(0);
    } finally {
      await close();
    }
  });

  it('control: without ceilings the same failure stops the action alike', async () => {
    const { read, executions, close } = await setup({ evidence: new FailingRecorder() });
    try {
      await expect(read()).rejects.toBeInstanceOf(EvidenceWriteFailedError);
      expect(executions).toHaveLength(0);
    } finally {
      await close();
    }
  });

  it('control: with a ceiling and working evidence the call runs, its evidence written before its executor ran', async () => {
    /** How many executions had happened at each evidence write. */
    const executionsAtWrites = async (callCeilings?: CallCeilings) => {
      const seen: number[] = [];
      let executions: readonly unknown[] = [];
      class WatchedRecorder extends InMemoryEvidenceRecorder {
        override recordDecisions(records: readonly DecisionRecord[]): Promise<void> {
          seen.push(executions.length);
          return super.recordDecisions(records);
        }
      }
      const evidence = new WatchedRecorder();
      const run = await setup({ callCeilings, evidence });
      executions = run.executions;
      try {
        expect(await run.read()).toMatchObject({ executed: true });
        expect(stages(evidence.decisions())).toEqual(['proposal:permit', 'target_refresh:permit', 'execution:permit']);
        return seen;
      } finally {
        await run.close();
      }
    };
    expect(await executionsAtWrites()).toEqual([0]);
    expect(await executionsAtWrites({ toolCalls: 50 })).toEqual([0]);
  });

  it('control: the ceiling still refuses the call past it', async () => {
    const { read, executions, close } = await setup({ callCeilings: { toolCalls: 1 } });
    try {
      expect(await read()).toMatchObject({ executed: true });
      expect(await read()).toMatchObject({
        executed: false,
        decision: { disposition: 'deny', stage: 'call_ceiling' },
      });
      expect(executions).toHaveLength(1);
    } finally {
      await close();
    }
  });
});
