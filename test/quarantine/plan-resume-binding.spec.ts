import { describe, expect, it } from '@jest/globals';
import { tool } from '@langchain/core/tools';
import { interrupt } from '@langchain/langgraph';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { z } from 'zod';
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

/** The application's own tool, which asks the user a question of its own (a LangGraph interrupt) before archiving. */
function archiveDraft(archived: string[]) {
  return tool(
    async ({ name }) => {
      const answer = interrupt({ type: 'app.confirm', question: `Archive ${name}?` }) as { approved?: unknown };
      if (answer?.approved !== true) return 'kept';
      archived.push(name);
      return 'archived';
    },
    { name: 'archive_draft', description: 'Archive a draft (asks the user)', schema: z.object({ name: z.string() }) },
  );
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
    await first.resume({ approved: true, planFingerprint: shown[0]?.planFingerprint });

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
    await other.resume({ approved: true, planFingerprint: interruptsOf(other.state)[0]?.planFingerprint });
    const inForce = app.recorded.at(-1)?.planFingerprint;

    // Approving A→B now would replace X, which the user was never shown: refused, X stays.
    await pending.resume({ approved: true, planFingerprint: shownB?.planFingerprint });
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
      'Plan change refused: the approval does not name the plan shown (planFingerprint); the previous plan stays.',
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

  it.each([
    ['alone, the change its one interrupt showed', false],
    ["beside the application's own question in the same message", true],
  ])('attack: { approved: true } without the plan’s fingerprint puts no plan in force — %s', async (_case, beside) => {
    const app = await planned();
    const archived: string[] = [];
    const replan = { name: 'verdict_plan', args: { steps: [payFromFile] }, id: 'call_replan' };
    const archive = { name: 'archive_draft', args: { name: 'draft-1' }, id: 'call_archive' };
    const first = await app.turn(
      'Pay the bill in bill.txt; archive draft-1.',
      [plan(viewOnly), { toolCalls: beside ? [archive, replan] : [replan] }, ...payTheBill()],
      { plan: true, tools: [archiveDraft(archived)] },
    );
    expect(interruptsOf(first.state).map((paused) => paused.type)).toEqual(
      beside ? ['app.confirm', 'verdict_plan_change'] : ['verdict_plan_change'],
    );
    // LangGraph hands this one value to every paused call: the application meant its own question.
    await first.resume({ approved: true });
    expect(archived).toEqual(beside ? ['draft-1'] : []);
    expect(first.model.toolMessages().map((message) => message.content)).toContain(
      'Plan change refused: the approval does not name the plan shown (planFingerprint); the previous plan stays.',
    );
    expect(app.recorded).toHaveLength(1);
    expect(app.payments).toEqual([]);
  });

  it("control: the user's answer naming the plan, beside the application's own question, approves both", async () => {
    const app = await planned();
    const archived: string[] = [];
    const first = await app.turn(
      'Pay the bill in bill.txt; archive draft-1.',
      [
        plan(viewOnly),
        {
          toolCalls: [
            { name: 'archive_draft', args: { name: 'draft-1' }, id: 'call_archive' },
            { name: 'verdict_plan', args: { steps: [payFromFile] }, id: 'call_replan' },
          ],
        },
        ...payTheBill(),
      ],
      { plan: true, tools: [archiveDraft(archived)] },
    );
    const shown = interruptsOf(first.state).find((paused) => paused.type === 'verdict_plan_change');
    await first.resume({ approved: true, planFingerprint: shown?.planFingerprint });
    expect(archived).toEqual(['draft-1']);
    expect(app.recorded.at(-1)?.planFingerprint).toBe(shown?.planFingerprint);
    expect(app.payments.map((payment) => payment.arguments)).toEqual([{ recipient: BILL_IBAN, amount: 120 }]);
  });

  it('control: one plan change approved by naming its fingerprint is in force and the run goes on', async () => {
    const app = await planned();
    const first = await app.turn(
      'Pay the bill in bill.txt.',
      [plan(viewOnly), plan([payFromFile], 'call_replan'), ...payTheBill()],
      { plan: true },
    );
    const [shown] = interruptsOf(first.state);
    expect(shown).toMatchObject({ type: 'verdict_plan_change', plan: { steps: [payFromFile] } });
    await first.resume({ approved: true, planFingerprint: shown?.planFingerprint });
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
