import { describe, expect, it } from '@jest/globals';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import {
  type Plan,
  PlanRecorded,
  ProvenanceSource,
  ProvenanceWindow,
  Trust,
  VerdictService,
  labelContent,
  withPlan,
  withProvenance,
} from '@verdict/nestjs';
import { type PlanChangeInterrupt, PlanModes } from '@verdict/nestjs/langchain';
import type { ScriptStep } from '@verdict/nestjs/testing/langchain';
import { alice } from '../provenance/payments.fixture.js';
import { BILL, BILL_IBAN, TYPED_IBAN, billFixture, payTheBill } from './bill.fixture.js';

const BILL_ANSWER = JSON.stringify({ iban: BILL_IBAN, amount: 120 });
const allow = { untrustedContext: 'allow', arguments: { recipient: 'allow' } } as const;
/** The plan "pay the bill in the file": the recipient and the amount come from the file (`mcp:files`). */
const payFromFile = { capability: 'payments.send', arguments: { recipient: ['mcp:files'], amount: ['mcp:files'] } };

function plan(steps: unknown[], id = 'call_plan'): ScriptStep {
  return { toolCalls: [{ name: 'verdict_plan', args: { steps }, id }] };
}

async function planned(answers = [BILL_ANSWER]) {
  const app = await billFixture(answers, { payments: allow, imports: [EventEmitterModule.forRoot()] });
  const recorded: PlanRecorded[] = [];
  app.moduleRef.get(EventEmitter2).on(PlanRecorded.event, (event: PlanRecorded) => recorded.push(event));
  return { ...app, recorded };
}

describe('plan mode: a plan made from trusted input binds the run', () => {
  it('utility: the bill is paid within a plan that names the file as the source of recipient and amount', async () => {
    const app = await planned();
    const { model } = await app.turn('Pay the bill in bill.txt.', [plan([payFromFile]), ...payTheBill()], {
      plan: true,
    });

    expect(model.toolMessages()[0]?.content).toMatch(/^Plan accepted \([0-9a-f]{16}\)\.$/);
    expect(app.payments.map((payment) => payment.arguments)).toEqual([{ recipient: BILL_IBAN, amount: 120 }]);
    expect(app.recorded).toEqual([
      expect.objectContaining({ planFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/), previousFingerprint: null }),
    ]);
  });

  it('utility: a second payment within the plan passes while the first payment’s call is in its window', async () => {
    // The first call's recipient came from the file: later windows hold it under `mcp:files`, a source the plan
    // names, and the amount (found nowhere) comes from the window's untrusted sources, all named (ADR 0128).
    const app = await planned();
    const steps = payTheBill();
    const again: ScriptStep = {
      toolCalls: [{ name: 'send_payment', args: { recipient: BILL_IBAN, amount: 120 }, id: 'call_pay_again' }],
    };
    await app.turn(
      'Pay the bill in bill.txt twice.',
      [plan([payFromFile]), ...steps.slice(0, -1), again, ...steps.slice(-1)],
      {
        plan: true,
      },
    );

    expect(app.payments.map((payment) => payment.arguments)).toEqual([
      { recipient: BILL_IBAN, amount: 120 },
      { recipient: BILL_IBAN, amount: 120 },
    ]);
  });

  it('attack: a value from a source the plan did not name is refused; control: the value the user typed passes', async () => {
    const userOnly = { capability: 'payments.send', arguments: { amount: ['mcp:files'] } };
    const attacked = await planned();
    await attacked.turn('Pay the bill in bill.txt.', [plan([userOnly]), ...payTheBill()], { plan: true });
    expect(attacked.payments).toEqual([]);
    expect(attacked.evidence.decisions()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          capability: 'payments.send',
          stage: 'provenance',
          disposition: 'deny',
          // recipient is a path the capability's provenance policy declares: shown in clear.
          reason: expect.stringMatching(
            /^plan [0-9a-f]{16}: argument recipient comes from a source the plan did not name$/,
          ),
        }),
      ]),
    );

    const typed = await planned();
    await typed.turn(`Pay the bill in bill.txt to ${TYPED_IBAN}.`, [plan([userOnly]), ...payTheBill(TYPED_IBAN)], {
      plan: true,
    });
    expect(typed.payments.map((payment) => payment.arguments)).toEqual([{ recipient: TYPED_IBAN, amount: 120 }]);
  });

  it('attack: a capability outside the plan is refused, and so is every call before a plan', async () => {
    const outside = await planned();
    await outside.turn(
      'Show me product p-1, then pay the bill.',
      [plan([{ capability: 'products.view' }]), ...payTheBill()],
      { plan: true },
    );
    expect(outside.payments).toEqual([]);
    expect(outside.evidence.decisions().map((d) => d.reason)).toContainEqual(
      expect.stringMatching(/^plan [0-9a-f]{16}: capability payments.send is not in the plan$/),
    );

    const none = await planned();
    await none.turn('Pay the bill in bill.txt.', payTheBill(), { plan: true });
    expect(none.payments).toEqual([]);
    expect(none.evidence.decisions().map((d) => d.reason)).toContain('plan mode: no plan was accepted for this run');
  });

  it('attack: a plan proposed after untrusted content was read is refused', async () => {
    const app = await planned();
    const [read, extract, , done] = payTheBill();
    const pay: ScriptStep = {
      toolCalls: [{ name: 'send_payment', args: { recipient: BILL_IBAN, amount: 120 }, id: 'call_pay' }],
    };
    const { model } = await app.turn('Pay the bill in bill.txt.', [read!, extract!, plan([payFromFile]), pay, done!], {
      plan: true,
    });

    expect(model.toolMessages()[2]?.content).toBe(
      'Plan refused: a plan is made from trusted input only, before untrusted content is read.',
    );
    expect(app.payments).toEqual([]);
    expect(app.recorded).toEqual([]);
  });

  it('a plan change asks the user again: approved, the new plan binds; rejected, the previous one stays', async () => {
    const viewOnly = [{ capability: 'products.view' }];
    const script = (): ScriptStep[] => [plan(viewOnly), plan([payFromFile], 'call_replan'), ...payTheBill()];

    const approved = await planned();
    const first = await approved.turn('Pay the bill in bill.txt.', script(), { plan: true });
    const paused = (first.state as { __interrupt__?: { value: PlanChangeInterrupt }[] }).__interrupt__;
    expect(paused?.[0]?.value).toMatchObject({ type: 'verdict_plan_change', plan: { steps: [payFromFile] } });
    await first.resume({ approved: true, planFingerprint: paused?.[0]?.value.planFingerprint });
    expect(approved.payments.map((payment) => payment.arguments)).toEqual([{ recipient: BILL_IBAN, amount: 120 }]);
    expect(approved.recorded.map((event) => event.previousFingerprint === null)).toEqual([true, false]);

    const rejected = await planned();
    const second = await rejected.turn('Pay the bill in bill.txt.', script(), { plan: true });
    await second.resume({ approved: false });
    expect(second.model.toolMessages()[1]?.content).toBe('Plan change rejected by the user: the previous plan stays.');
    expect(rejected.payments).toEqual([]);
  });

  it('attack: a plan accepted in a run without thread id binds no other run; control: each thread has its own plan', async () => {
    const app = await planned([BILL_ANSWER, BILL_ANSWER]);
    const planMode = app.moduleRef.get(PlanModes).forAgent();
    const first = await app.turn('Pay the bill in bill.txt.', [plan([payFromFile]), ...payTheBill()], {
      plan: planMode,
      threadless: true,
    });
    expect(first.model.toolMessages()[0]?.content).toBe(
      "Plan refused: plan mode needs the run's thread id (configurable.thread_id) to keep a plan.",
    );
    await app.turn('Pay the bill in bill.txt.', payTheBill(), { plan: planMode, threadless: true });
    expect(app.payments).toEqual([]);
    expect(app.recorded).toEqual([]);

    const threaded = await planned([BILL_ANSWER, BILL_ANSWER]);
    const shared = threaded.moduleRef.get(PlanModes).forAgent();
    await threaded.turn('Pay the bill in bill.txt.', [plan([payFromFile]), ...payTheBill()], { plan: shared });
    await threaded.turn('Pay the bill in bill.txt.', payTheBill(), { plan: shared });
    expect(threaded.payments.map((payment) => payment.arguments)).toEqual([{ recipient: BILL_IBAN, amount: 120 }]);
    expect(threaded.evidence.decisions().map((d) => d.reason)).toContain(
      'plan mode: no plan was accepted for this run',
    );
  });

  it('attack: another tenant, or another actor, given the same thread id has no plan of alice’s; control: hers binds her thread', async () => {
    const app = await planned([BILL_ANSWER, BILL_ANSWER, BILL_ANSWER]);
    const shared = app.moduleRef.get(PlanModes).forAgent();
    const thread = 'thread-7';
    await app.turn('Pay the bill in bill.txt.', [plan([payFromFile]), { text: 'planned' }], { plan: shared, thread });
    expect(app.recorded).toHaveLength(1);

    // The same actor id in another tenant, on alice's thread id: no plan, so the payment is refused.
    const otherTenant = { ...alice, tenant: 'globex' };
    await app.turn('Pay the bill in bill.txt.', payTheBill(), { plan: shared, thread, as: otherTenant });
    expect(app.payments).toEqual([]);
    expect(app.evidence.decisions().map((d) => d.reason)).toContain('plan mode: no plan was accepted for this run');

    // Another actor proposing a plan on alice's thread id makes a first plan of their own: no plan change of hers.
    const bob = await app.turn('Show me product p-1.', [plan([{ capability: 'products.view' }]), { text: 'ok' }], {
      plan: shared,
      thread,
      as: { ...alice, actor: { id: 'bob' } },
    });
    expect((bob.state as { __interrupt__?: unknown }).__interrupt__).toBeUndefined();
    expect(bob.model.toolMessages()[0]?.content).toMatch(/^Plan accepted/);
    expect(app.recorded.map((event) => event.previousFingerprint)).toEqual([null, null]);

    // Control: alice's own thread still runs under her plan, untouched by either.
    await app.turn('Pay the bill in bill.txt.', payTheBill(), { plan: shared, thread });
    expect(app.payments.map((payment) => payment.arguments)).toEqual([{ recipient: BILL_IBAN, amount: 120 }]);
  });

  it('attack: a run outside any action context keeps no plan another principal could run under', async () => {
    const app = await planned();
    const shared = app.moduleRef.get(PlanModes).forAgent();
    const { model } = await app.turn('Pay the bill in bill.txt.', [plan([payFromFile]), { text: 'planned' }], {
      plan: shared,
      thread: 'thread-9',
      as: null,
    });
    expect(model.toolMessages()[0]?.content).toBe(
      "Plan refused: plan mode needs the run's action context (actor and tenant) to keep a plan.",
    );
    expect(app.recorded).toEqual([]);
  });

  it('attack: a plan naming the unobserved source covers no unobserved window; control: a named source is within', async () => {
    const app = await planned();
    const verdict = app.moduleRef.get(VerdictService);
    const pay = (plan: Plan, window: ProvenanceWindow) =>
      app.as(() =>
        withPlan(plan, () =>
          withProvenance(window, () =>
            verdict.execute({
              capability: 'payments.send',
              arguments: { recipient: BILL_IBAN, amount: 120 },
              toolCallId: 'app-plan',
            }),
          ),
        ),
      );
    const everything = ['unobserved:context', 'mcp:files'];
    const wide = { steps: [{ capability: 'payments.send', arguments: { recipient: everything, amount: everything } }] };
    const unseen = await pay(wide, ProvenanceWindow.unobserved());
    expect(unseen.executed).toBe(false);
    expect(app.evidence.decisions().map((d) => d.reason)).toContainEqual(
      expect.stringMatching(/^plan [0-9a-f]{16}: argument recipient comes from a source the plan did not name$/),
    );

    const read = ProvenanceWindow.of([labelContent(BILL, ProvenanceSource.mcp('files'), Trust.Untrusted)]);
    expect((await pay(wide, read)).executed).toBe(true);
    expect(app.payments).toHaveLength(1);
  });
});
