import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import type { TestingModule } from '@nestjs/testing';
import {
  type ActionContext,
  ActionContextStore,
  type BudgetReservationRequest,
  type CallCeilings,
  type DecisionRecord,
  EvidenceWriteFailedError,
  InMemoryBudgetStore,
  InMemoryEvidenceRecorder,
  ShadowDecisionRecorded,
  ToolLoopDetected,
  VerdictService,
  fingerprint,
} from '@verdict/nestjs';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';

const booted: TestingModule[] = [];
afterEach(async () => {
  jest.restoreAllMocks();
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

/** A recorder whose writes fail while `failing` is set, as an evidence database that is briefly unreachable. */
class OutageRecorder extends InMemoryEvidenceRecorder {
  failing = false;
  override recordDecisions(records: readonly DecisionRecord[]): Promise<void> {
    if (this.failing) return Promise.reject(new Error('evidence database unreachable'));
    return super.recordDecisions(records);
  }
}

/** A budget store whose reservations of one unit fail while `failing` is set: the count of a refused proposal. */
class CountOutageStore extends InMemoryBudgetStore {
  failing = false;
  readonly outage = new Error('budget database unreachable');
  override reserve(request: BudgetReservationRequest) {
    if (this.failing && request.amount === 1) return Promise.reject(this.outage);
    return super.reserve(request);
  }
}

const inConversation = (id: string): ActionContext => ({ ...alice, metadata: { conversationId: id } });

/**
 * The documents fixture (alice reads her document 1, CASL refuses her bob's document 2) with `callCeilings`, and
 * `documents.peek`, the same read declared in shadow mode (`enforce: false`).
 */
async function setup(callCeilings: CallCeilings, toolLoopThreshold?: number) {
  const fixture = documentsFixture();
  const peek = fixture.documentCapability(
    { name: 'documents.peek', description: 'Show the title of a document', enforce: false },
    (action) => {
      fixture.executions.push(action);
      return action.target.title;
    },
  );
  const evidence = new OutageRecorder();
  const budgets = new CountOutageStore();
  // One instant for the whole test: the ceilings' window (a UTC day) cannot roll over between two calls.
  const now = new Date();
  const { moduleRef } = await fixture.boot({
    capabilities: [peek],
    budgets,
    callCeilings,
    evidence,
    toolLoopThreshold,
    clock: () => now,
    imports: [EventEmitterModule.forRoot()],
  });
  booted.push(moduleRef);
  const loops: ToolLoopDetected[] = [];
  const shadowed: ShadowDecisionRecorded[] = [];
  const events = moduleRef.get(EventEmitter2);
  events.on(ToolLoopDetected.event, (event: ToolLoopDetected) => loops.push(event));
  events.on(ShadowDecisionRecorded.event, (event: ShadowDecisionRecorded) => shadowed.push(event));
  const contexts = moduleRef.get(ActionContextStore);
  const verdict = moduleRef.get(VerdictService);
  const call = (capability: string) => (context: ActionContext, id: number) =>
    contexts.run(context, () => verdict.execute({ capability, arguments: { id } }));
  const outcome = (result: { executed: boolean; decision: { disposition: string; stage: string } }) =>
    result.executed ? 'executed' : `${result.decision.disposition}@${result.decision.stage}`;
  return {
    fixture,
    evidence,
    budgets,
    loops,
    shadowed,
    outcome,
    read: call('documents.read'),
    peek: call('documents.peek'),
  };
}

describe('call ceilings: a refusal whose evidence could not be written', () => {
  it('attack: refused proposals still count toward deniedProposals when their evidence write failed; the fault still surfaces', async () => {
    const { evidence, loops, read, outcome, fixture } = await setup({ deniedProposals: 2 });
    const c1 = inConversation('c-1');
    evidence.failing = true;
    // Bob's document, twice, while the evidence database is down: each answer is the evidence fault, never a decision.
    await expect(read(c1, 2)).rejects.toBeInstanceOf(EvidenceWriteFailedError);
    await expect(read(c1, 2)).rejects.toBeInstanceOf(EvidenceWriteFailedError);
    evidence.failing = false;
    expect(loops.map((event) => [event.repetitions, event.conversationFingerprint])).toEqual([[2, fingerprint('c-1')]]);
    // Both refusals counted: the conversation is stopped, alice's own document included.
    expect(outcome(await read(c1, 1))).toBe('deny@call_ceiling');
    expect(fixture.executions).toHaveLength(0);
  });

  it("with the count failing too, the evidence fault is still the answer, and the count's fault is logged", async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { evidence, budgets, read, fixture } = await setup({ deniedProposals: 2 });
    evidence.failing = true;
    budgets.failing = true;
    await expect(read(inConversation('c-1'), 2)).rejects.toBeInstanceOf(EvidenceWriteFailedError);
    expect(logged.mock.calls).toEqual([
      [expect.stringContaining('Could not count a refused proposal'), budgets.outage],
    ]);
    expect(fixture.executions).toHaveLength(0);
  });

  it('control: a run the evidence stopped before it executed, and an application fault, are not refusals and are not counted', async () => {
    const { evidence, loops, read, outcome, fixture } = await setup({ deniedProposals: 2 });
    const c1 = inConversation('c-1');
    evidence.failing = true;
    // Alice's own document: permitted, then stopped by the evidence written before the executor. Not a refusal.
    await expect(read(c1, 1)).rejects.toBeInstanceOf(EvidenceWriteFailedError);
    await expect(read(c1, 1)).rejects.toBeInstanceOf(EvidenceWriteFailedError);
    evidence.failing = false;
    fixture.hooks.onResolve = () => {
      throw new Error('documents database unreachable');
    };
    await expect(read(c1, 1)).rejects.toThrow('documents database unreachable');
    await expect(read(c1, 1)).rejects.toThrow('documents database unreachable');
    fixture.hooks.onResolve = undefined;
    expect(loops).toEqual([]);
    // One real refusal is still under the ceiling of 2; the conversation goes on.
    expect(outcome(await read(c1, 2))).toBe('deny@proposal');
    expect(outcome(await read(c1, 1))).toBe('executed');
  });
});

describe('call ceilings: a refusal whose count could not be stored', () => {
  it("the caller gets the store's fault, not the refusal; the refusal is recorded and nothing ran", async () => {
    const { budgets, evidence, read, fixture } = await setup({ deniedProposals: 2 });
    budgets.failing = true;
    await expect(read(inConversation('c-1'), 2)).rejects.toBe(budgets.outage);
    expect(evidence.decisions().map((record) => `${record.stage}:${record.disposition}`)).toEqual(['proposal:deny']);
    expect(fixture.executions).toHaveLength(0);
  });

  it('control: with the store back, refusals are counted and the conversation stops at its ceiling', async () => {
    const { budgets, read, outcome } = await setup({ deniedProposals: 2 });
    const c1 = inConversation('c-1');
    budgets.failing = true;
    await expect(read(c1, 2)).rejects.toBe(budgets.outage);
    budgets.failing = false;
    expect(outcome(await read(c1, 2))).toBe('deny@proposal');
    expect(outcome(await read(c1, 1))).toBe('executed');
    expect(outcome(await read(c1, 2))).toBe('deny@proposal');
    expect(outcome(await read(c1, 1))).toBe('deny@call_ceiling');
  });
});

describe('call ceilings and shadow mode', () => {
  it('a refusal shadow mode went on past is not counted: the conversation is not stopped, and no ToolLoopDetected', async () => {
    const { loops, shadowed, peek, read, outcome, fixture } = await setup({ deniedProposals: 2 }, 100);
    const c1 = inConversation('c-1');
    // CASL would refuse alice's peek at bob's document (twice per call: steps 3 and 9); shadow mode lets each run.
    for (let i = 0; i < 3; i++) expect(outcome(await peek(c1, 2))).toBe('executed');
    expect(shadowed).toHaveLength(6);
    expect(loops).toEqual([]);
    expect(outcome(await read(c1, 1))).toBe('executed');
    expect(fixture.executions.map((action) => action.target.id)).toEqual([2, 2, 2, 1]);
  });

  it('identical shadowed proposals are a loop as identical permitted ones are: ToolLoopDetected, and the conversation goes on', async () => {
    const { loops, peek, read, outcome } = await setup({ deniedProposals: 2 });
    const c1 = inConversation('c-1');
    for (let i = 0; i < 3; i++) expect(outcome(await peek(c1, 2))).toBe('executed');
    for (let i = 0; i < 3; i++) expect(outcome(await read(c1, 1))).toBe('executed');
    expect(loops.map((event) => [event.capability, event.stage, event.repetitions])).toEqual([
      ['documents.peek', 'execution', 3],
      ['documents.read', 'execution', 3],
    ]);
    expect(outcome(await peek(c1, 2))).toBe('executed');
  });

  it('control: the same refusals enforced are counted and stop the conversation; shadow mode never softens the ceiling', async () => {
    const { loops, peek, read, outcome } = await setup({ deniedProposals: 2 }, 100);
    const c1 = inConversation('c-1');
    expect([await read(c1, 2), await read(c1, 2)].map(outcome)).toEqual(['deny@proposal', 'deny@proposal']);
    expect(loops.map((event) => event.repetitions)).toEqual([2]);
    // The stopped conversation: the shadowed capability is refused at call_ceiling too.
    expect(outcome(await peek(c1, 1))).toBe('deny@call_ceiling');
  });
});
