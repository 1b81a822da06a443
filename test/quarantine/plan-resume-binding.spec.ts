import { describe, expect, it } from '@jest/globals';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { PlanRecorded } from '@verdict/nestjs';
import { type PlanChangeInterrupt, PlanModes } from '@verdict/nestjs/langchain';
import type { ScriptStep } from '@verdict/nestjs/testing/langchain';
import { BILL_IBAN, billFixture, payTheBill } from './bill.fixture.js';

// A plan change is approved for the one plan its interrupt showed, replacing the plan it named as previous: one
// resume value, which LangGraph hands every paused task, puts no other plan in force (docs/quarantine.md §6).

const BILL_ANSWER = JSON.stringify({ iban: BILL_IBAN, amount: 120 });
const allow = { untrustedContext: 'allow', arguments: { recipient: 'allow' } } as const;
const viewOnly = [{ capability: 'products.view' }];
/** Pay the bill in the file: recipient and amount from `mcp:files`. */
const payFromFile = { capability: 'payments.send', arguments: { recipient: ['mcp:files'], amount: ['mcp:files'] } };
/** Pay whoever the mail names: a plan the user never saw. */
const payFromMail = { capability: 'payments.send', arguments: { recipient: ['mcp:mail'], amount: ['mcp:files'] } };

function plan(steps: unknown[], id = 'call_plan'): ScriptStep {
  return { toolCalls: [{ name: 'verdict_plan', args: { steps }, id }] };
}

async function planned(answers = [BILL_ANSWER, BILL_ANSWER]) {
  const app = await billFixture(answers, { payments: allow, imports: [EventEmitterModule.forRoot()] });
  const recorded: PlanRecorded[] = [];
  app.moduleRef.get(EventEmitter2).on(PlanRecorded.event, (event: PlanRecorded) => recorded.push(event));
  return { ...app, recorded };
}

function interruptsOf(state: unknown): PlanChangeInterrupt[] {
  const paused = (state as { __interrupt__?: { value: PlanChangeInterrupt }[] }).__interrupt__ ?? [];
  return paused.map((entry) => entry.value);
}

/** Each recorded change, as `previous→plan`. */
function changes(recorded: readonly PlanRecorded[]): string[] {
  return recorded.map((event) => `${event.previousFingerprint}→${event.planFingerprint}`);
}

describe('plan mode: a plan change’s approval binds the plan its interrupt showed', () => {
  it('attack: one AI message with two plan calls puts in force only the plan the user was shown and approved', async () => {
    const app = await planned();
    const twoPlans: ScriptStep = {
      toolCalls: [
        { name: 'verdict_plan', args: { steps: [payFromFile] }, id: 'call_b' },
        { name: 'verdict_plan', args: { steps: [payFromMail] }, id: 'call_c' },
      ],
    };
    const first = await app.turn('Pay the bill in bill.txt.', [plan(viewOnly), twoPlans, ...payTheBill()], {
      plan: true,
    });
    const shown = interruptsOf(first.state);
    await first.resume({ approved: true });

    // Every change in force was shown to the user as exactly that change: no plan replaced one it did not name.
    const shownChanges = shown.map((change) => `${change.previousFingerprint}→${change.planFingerprint}`);
    expect(changes(app.recorded.slice(1))).toEqual(shownChanges);
    expect(shown).toHaveLength(1);
    expect(shown[0]?.plan).toEqual({ steps: [payFromFile] });
    expect(app.recorded.at(-1)?.planFingerprint).toBe(shown[0]?.planFingerprint);
    expect(first.model.toolMessages().map((message) => message.content)).toContain(
      'Plan refused: one plan per message; this message already proposed one.',
    );
    // The approved plan binds the rest of the run.
    expect(app.payments.map((payment) => payment.arguments)).toEqual([{ recipient: BILL_IBAN, amount: 120 }]);
  });

  it('attack: an approval whose interrupt named a previous plan no longer in force is refused', async () => {
    const app = await planned();
    const shared = app.moduleRef.get(PlanModes).forAgent();
    const thread = 'thread-stale';
    await app.turn('Show me product p-1.', [plan(viewOnly), { text: 'planned' }], { plan: shared, thread });

    // The user is shown A→B, and left it pending; meanwhile A→X is approved on the same thread.
    const pending = await app.turn('Pay the bill in bill.txt.', [plan([payFromFile], 'call_b'), ...payTheBill()], {
      plan: shared,
      thread,
    });
    const [shownB] = interruptsOf(pending.state);
    expect(shownB?.previousFingerprint).toBe(app.recorded[0]?.planFingerprint);
    const other = await app.turn('Pay by mail.', [plan([payFromMail], 'call_x'), { text: 'planned' }], {
      plan: shared,
      thread,
    });
    await other.resume({ approved: true });
    const inForce = app.recorded.at(-1)?.planFingerprint;

    // Approving A→B now would replace X, which the user was never shown: refused, X stays.
    await pending.resume({ approved: true });
    expect(pending.model.toolMessages()[0]?.content).toBe(
      'Plan change refused: the plan in force is no longer the one the user was shown as previous; it stays.',
    );
    expect(app.recorded).toHaveLength(2);
    expect(app.recorded.at(-1)?.planFingerprint).toBe(inForce);
    expect(app.payments).toEqual([]);
  });

  it('attack: an approval naming another plan’s fingerprint is refused; control: its own fingerprint is accepted', async () => {
    const script = (): ScriptStep[] => [plan(viewOnly), plan([payFromFile], 'call_replan'), ...payTheBill()];
    const mismatched = await planned();
    const first = await mismatched.turn('Pay the bill in bill.txt.', script(), { plan: true });
    await first.resume({ approved: true, planFingerprint: '0'.repeat(64) });
    expect(first.model.toolMessages()[1]?.content).toBe(
      'Plan change refused: the approval names another plan than the one shown; the previous plan stays.',
    );
    expect(mismatched.recorded).toHaveLength(1);
    expect(mismatched.payments).toEqual([]);

    const matched = await planned();
    const second = await matched.turn('Pay the bill in bill.txt.', script(), { plan: true });
    const [shown] = interruptsOf(second.state);
    await second.resume({ approved: true, planFingerprint: shown?.planFingerprint });
    expect(matched.recorded.at(-1)?.planFingerprint).toBe(shown?.planFingerprint);
    expect(matched.payments.map((payment) => payment.arguments)).toEqual([{ recipient: BILL_IBAN, amount: 120 }]);
  });

  it('control: one plan change approved with { approved: true } is in force and the run goes on', async () => {
    const app = await planned();
    const first = await app.turn(
      'Pay the bill in bill.txt.',
      [plan(viewOnly), plan([payFromFile], 'call_replan'), ...payTheBill()],
      { plan: true },
    );
    const [shown] = interruptsOf(first.state);
    expect(shown).toMatchObject({ type: 'verdict_plan_change', plan: { steps: [payFromFile] } });
    await first.resume({ approved: true });
    expect(first.model.toolMessages()[1]?.content).toMatch(/^Plan accepted \([0-9a-f]{16}\)\.$/);
    expect(changes(app.recorded)).toEqual([
      `null→${shown?.previousFingerprint}`,
      `${shown?.previousFingerprint}→${shown?.planFingerprint}`,
    ]);
    expect(app.payments.map((payment) => payment.arguments)).toEqual([{ recipient: BILL_IBAN, amount: 120 }]);
  });

  it('control: a rejected plan change keeps the previous plan', async () => {
    const app = await planned();
    const first = await app.turn(
      'Pay the bill in bill.txt.',
      [plan(viewOnly), plan([payFromFile], 'call_replan'), ...payTheBill()],
      { plan: true },
    );
    await first.resume({ approved: false });
    expect(first.model.toolMessages()[1]?.content).toBe('Plan change rejected by the user: the previous plan stays.');
    expect(app.recorded).toHaveLength(1);
    expect(app.payments).toEqual([]);
    expect(app.evidence.decisions().map((d) => d.reason)).toContainEqual(
      expect.stringMatching(/^plan [0-9a-f]{16}: capability payments.send is not in the plan$/),
    );
  });
});
