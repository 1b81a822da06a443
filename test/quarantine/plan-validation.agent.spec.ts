import { describe, expect, it } from '@jest/globals';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { PlanRecorded } from '@verdict/nestjs';
import type { ScriptStep } from '@verdict/nestjs/testing/langchain';
import { BILL_IBAN, billFixture, payTheBill } from './bill.fixture.js';

const BILL_ANSWER = JSON.stringify({ iban: BILL_IBAN, amount: 120 });
const allow = { untrustedContext: 'allow', arguments: { recipient: 'allow' } } as const;
const payFromFile = { capability: 'payments.send', arguments: { recipient: ['mcp:files'], amount: ['mcp:files'] } };
const PATH_REFUSED = 'Plan refused: step 1 has an argument path that is not a dot path (recipient, items.*.iban).';

function plan(steps: unknown[], id: string): ScriptStep {
  return { toolCalls: [{ name: 'verdict_plan', args: { steps }, id }] };
}

/** The model proposes `bad`, then the plan it meant, then pays the bill; answers the plan tool's answers and what happened. */
async function badThenGood(bad: unknown[]) {
  const app = await billFixture([BILL_ANSWER], { payments: allow, imports: [EventEmitterModule.forRoot()] });
  const recorded: PlanRecorded[] = [];
  app.moduleRef.get(EventEmitter2).on(PlanRecorded.event, (event: PlanRecorded) => recorded.push(event));
  const { model, state } = await app.turn(
    'Pay the bill in bill.txt.',
    [plan(bad, 'call_bad'), plan([payFromFile], 'call_plan'), ...payTheBill()],
    { plan: true },
  );
  return {
    answers: model
      .toolMessages()
      .slice(0, 2)
      .map((message) => message.content),
    recorded,
    paused: (state as { __interrupt__?: unknown }).__interrupt__ !== undefined,
    paid: app.payments.map((payment) => payment.arguments),
  };
}

describe('a plan that would refuse every call is refused as proposed, neither kept nor recorded', () => {
  it.each([
    [
      'an argument path with an empty segment',
      [{ capability: 'payments.send', arguments: { 'recipient.': ['mcp:files'] } }],
      PATH_REFUSED,
    ],
    [
      'a prototype key as argument path',
      [{ capability: 'payments.send', arguments: { constructor: ['mcp:files'] } }],
      PATH_REFUSED,
    ],
    [
      'a lone surrogate in a source',
      [{ capability: 'payments.send', arguments: { recipient: ['mcp:\ud800'] } }],
      'Plan refused: step 1 has a source that is not well-formed Unicode (a lone surrogate).',
    ],
    [
      'a lone surrogate in an argument path',
      [{ capability: 'payments.send', arguments: { 'recipient\udc00': ['mcp:files'] } }],
      'Plan refused: step 1 has an argument path that is not well-formed Unicode (a lone surrogate).',
    ],
    [
      'a lone surrogate in a capability',
      [{ capability: 'payments.send\ud800' }],
      'Plan refused: step 1 has a capability that is not well-formed Unicode (a lone surrogate).',
    ],
    [
      'a capability the application does not have',
      [{ capability: 'payments.sendd', arguments: { recipient: ['mcp:files'] } }],
      'Plan refused: step 1 names a capability this application does not have.',
    ],
  ])('attack: %s; the model’s next plan is a first plan, and the bill is paid', async (_what, bad, refusal) => {
    const { answers, recorded, paused, paid } = await badThenGood(bad as unknown[]);

    expect(answers[0]).toBe(refusal);
    expect(answers[1]).toMatch(/^Plan accepted \([0-9a-f]{16}\)\.$/);
    expect(paused).toBe(false);
    expect(recorded.map((event) => event.previousFingerprint)).toEqual([null]);
    expect(paid).toEqual([{ recipient: BILL_IBAN, amount: 120 }]);
  });

  it('control: a plan of known capabilities and dot paths (with *) is accepted and binds the run', async () => {
    const app = await billFixture([BILL_ANSWER], { payments: allow });
    const { model } = await app.turn(
      'Pay the bill in bill.txt.',
      [
        plan(
          [
            { capability: 'products.view' },
            { ...payFromFile, arguments: { ...payFromFile.arguments, 'items.*.iban': ['mcp:files'] } },
          ],
          'call_plan',
        ),
        ...payTheBill(),
      ],
      { plan: true },
    );

    expect(model.toolMessages()[0]?.content).toMatch(/^Plan accepted/);
    expect(app.payments.map((payment) => payment.arguments)).toEqual([{ recipient: BILL_IBAN, amount: 120 }]);
  });
});
