import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  ExecutionTargetPolicy,
  InMemoryTaintLedger,
  type Plan,
  ProvenanceSource,
  ProvenanceWindow,
  Trust,
  VerdictService,
  defineCapability,
  fromContext,
  labelContent,
  withPlan,
  withProvenance,
} from '@verdict/nestjs';
import { paymentsFixture } from '../provenance/payments.fixture.js';
import { BILL, BILL_IBAN, TYPED_IBAN } from './bill.fixture.js';

/**
 * A batch payment: its payees are a record keyed by IBAN. Under a plan a record key is an argument as a value is:
 * a key copied from the bill (`mcp:files`) needs a step naming that source, whatever value it holds (docs/quarantine.md
 * §6). The user's request holds the amount, so the amount is derived from trusted content. With `trusted`, the
 * capability's policy declares a trusted set (the actor's saved payees); with `taint`, the module keeps a taint ledger.
 */
const REQUEST = `Pay 120 to each payee, ${TYPED_IBAN} included.`;
/** A payee the actor saved earlier: in the application's trusted set, in no content of the window. */
const SAVED_IBAN = 'FR1420041010050500013M02606';
const account = { __caslSubjectType__: 'Account', id: 'acct-alice', owner: 'alice', tenant: 'acme' };
const WINDOW = ProvenanceWindow.of([
  labelContent(REQUEST, ProvenanceSource.user('chat'), Trust.Trusted),
  labelContent(BILL, ProvenanceSource.mcp('files'), Trust.Untrusted),
]);

async function batchApp(setup: { trusted?: readonly string[]; taint?: InMemoryTaintLedger } = {}) {
  const paid: unknown[] = [];
  /** How many times the application's trusted set was resolved. */
  let resolved = 0;
  const trustedValues = () => {
    resolved += 1;
    return setup.trusted!;
  };
  const payBatch = defineCapability(
    {
      name: 'payments.batch',
      description: 'Pay several payees',
      action: 'pay',
      subject: 'Account',
      arguments: z.object({
        amount: z.number().positive(),
        payees: z.record(z.string(), z.union([z.boolean(), z.number(), z.null()])),
        // Keys the application fixes: a union of literals, which the JSON schema lists outside `propertyNames`.
        options: z.partialRecord(z.union([z.literal('express'), z.literal('notify')]), z.boolean()).optional(),
        memo: z.string().optional(),
      }),
      resolveTarget: fromContext(() => account),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'account', identity: () => account.id }),
      mutates: true,
      ...(setup.trusted === undefined ? {} : { provenance: { trustedValues } }),
    },
    (action) => {
      paid.push(action.arguments);
      return { paid: true };
    },
  );
  const app = await paymentsFixture({
    capabilities: [payBatch],
    ...(setup.taint === undefined ? {} : { provenance: { taint: { ledger: setup.taint } } }),
  });
  const verdict = app.moduleRef.get(VerdictService);
  /** `capability` called with `args` under `plan`, proposed in `window`. */
  const call = (capability: string, plan: Plan, args: Record<string, unknown>, window = WINDOW) =>
    app.as(() =>
      withPlan(plan, () =>
        withProvenance(window, () => verdict.execute({ capability, arguments: args, toolCallId: 'call_batch' })),
      ),
    );
  const pay = (plan: Plan, args: Record<string, unknown>, window = WINDOW) =>
    call('payments.batch', plan, args, window);
  const reasons = () => app.evidence.decisions().map((decision) => decision.reason);
  return { call, pay, paid, reasons, resolved: () => resolved };
}

/** A plan naming no source: every value and key must be derived from trusted content. */
const noSources: Plan = { steps: [{ capability: 'payments.batch' }] };
/** A plan naming the bill as the source of the payees' keys. */
const keysFromFile: Plan = { steps: [{ capability: 'payments.batch', arguments: { 'payees.*': ['mcp:files'] } }] };
const REFUSED_KEY = /^plan [0-9a-f]{16}: argument #[0-9a-f]{16} comes from a source the plan did not name$/;

describe('plan mode: record keys are arguments the plan fixes the source of', () => {
  it('attack: a key copied from the bill, holding a boolean, is refused under a plan naming no source', async () => {
    const app = await batchApp();
    const outcome = await app.pay(noSources, { amount: 120, payees: { [BILL_IBAN]: true } });

    expect(outcome.executed).toBe(false);
    expect(app.paid).toEqual([]);
    expect(app.reasons()).toContainEqual(expect.stringMatching(REFUSED_KEY));
    expect(app.reasons().join('\n')).not.toContain(BILL_IBAN);
  });

  it('attack: a key copied from the bill, holding a number the user typed, is refused likewise', async () => {
    const app = await batchApp();
    const outcome = await app.pay(noSources, { amount: 120, payees: { [BILL_IBAN]: 120 } });

    expect(outcome.executed).toBe(false);
    expect(app.paid).toEqual([]);
    expect(app.reasons()).toContainEqual(expect.stringMatching(REFUSED_KEY));
  });

  it('attack: a key copied from the bill, holding null, is refused likewise', async () => {
    const app = await batchApp();
    expect((await app.pay(noSources, { amount: 120, payees: { [BILL_IBAN]: null } })).executed).toBe(false);
  });

  it('control: the same key passes when the step names the bill as the source of the payees', async () => {
    const app = await batchApp();
    const outcome = await app.pay(keysFromFile, { amount: 120, payees: { [BILL_IBAN]: true } });

    expect(outcome.executed).toBe(true);
    expect(app.paid).toEqual([{ amount: 120, payees: { [BILL_IBAN]: true } }]);
  });

  it('control: the schema’s property names are no values, though the bill says "Amount due"', async () => {
    const app = await batchApp();
    const outcome = await app.pay(noSources, { amount: 120, payees: {} });

    expect(outcome.executed).toBe(true);
    expect(app.paid).toEqual([{ amount: 120, payees: {} }]);
  });

  it('control: keys the schema fixes (a record keyed by literals) are no values', async () => {
    const app = await batchApp();
    const args = { amount: 120, payees: { [TYPED_IBAN]: true }, options: { express: true } };
    const outcome = await app.pay(noSources, args);

    expect(outcome.executed).toBe(true);
    expect(app.paid).toEqual([args]);
  });

  it('control: a key the user typed passes under a plan naming no source', async () => {
    const app = await batchApp();
    const outcome = await app.pay(noSources, { amount: 120, payees: { [TYPED_IBAN]: true } });

    expect(outcome.executed).toBe(true);
    expect(app.paid).toEqual([{ amount: 120, payees: { [TYPED_IBAN]: true } }]);
  });
});

describe('plan mode: a record key is derived from trusted content as a value is (trusted set, taint ledger)', () => {
  it('control: a key of the trusted set (a saved payee) passes under a plan naming no source', async () => {
    const app = await batchApp({ trusted: [SAVED_IBAN] });
    const outcome = await app.pay(noSources, { amount: 120, payees: { [SAVED_IBAN]: true } });

    expect(outcome.executed).toBe(true);
    expect(app.paid).toEqual([{ amount: 120, payees: { [SAVED_IBAN]: true } }]);
    // The plan check refuses the key without the trusted set: it is resolved, once, and decides.
    expect(app.resolved()).toBe(1);
  });

  it('cost: the trusted set is not resolved for a call the plan permits without it', async () => {
    const app = await batchApp({ trusted: [SAVED_IBAN] });
    // No untrusted content: a value found nowhere (an amount the model computed, 12 × 120) has no source to name.
    const typed = ProvenanceWindow.of([labelContent(REQUEST, ProvenanceSource.user('chat'), Trust.Trusted)]);
    const args = { amount: 1440, payees: { [TYPED_IBAN]: true } };
    const outcome = await app.pay(noSources, args, typed);

    expect(outcome.executed).toBe(true);
    expect(app.paid).toEqual([args]);
    expect(app.resolved()).toBe(0);
  });

  it('cost: nor for a call the plan refuses whatever its values (its capability in no step)', async () => {
    const app = await batchApp({ trusted: [SAVED_IBAN] });
    const sendOnly: Plan = { steps: [{ capability: 'payments.send' }] };
    const outcome = await app.pay(sendOnly, { amount: 120, payees: { [SAVED_IBAN]: true } });

    expect(outcome.executed).toBe(false);
    expect(app.reasons()).toContainEqual(expect.stringMatching(/capability payments\.batch is not in the plan$/));
    expect(app.resolved()).toBe(0);
  });

  it('control: the same string as a value passes likewise', async () => {
    const app = await batchApp({ trusted: [SAVED_IBAN] });
    const outcome = await app.pay(noSources, { amount: 120, payees: {}, memo: SAVED_IBAN });

    expect(outcome.executed).toBe(true);
    expect(app.paid).toEqual([{ amount: 120, payees: {}, memo: SAVED_IBAN }]);
  });

  it('attack: a key copied from the bill is still refused, the trusted set declared', async () => {
    const app = await batchApp({ trusted: [SAVED_IBAN] });
    const outcome = await app.pay(noSources, { amount: 120, payees: { [SAVED_IBAN]: true, [BILL_IBAN]: true } });

    expect(outcome.executed).toBe(false);
    expect(app.paid).toEqual([]);
    expect(app.reasons()).toContainEqual(expect.stringMatching(REFUSED_KEY));
  });

  it('attack: a key joining a trusted value to the bill’s text is refused, as a value of that shape is', async () => {
    const app = await batchApp({ trusted: [SAVED_IBAN] });
    const joined = `${SAVED_IBAN} ${BILL_IBAN}`;

    expect((await app.pay(noSources, { amount: 120, payees: {}, memo: joined })).executed).toBe(false);
    expect((await app.pay(noSources, { amount: 120, payees: { [joined]: true } })).executed).toBe(false);
    expect(app.paid).toEqual([]);
    expect(app.reasons().filter((reason) => REFUSED_KEY.test(reason))).toHaveLength(2);
  });

  /** A trusted result (the actor's notes) that echoes the bill's IBAN, and the bill itself. */
  const echoed = ProvenanceWindow.of([
    labelContent(REQUEST, ProvenanceSource.user('chat'), Trust.Trusted),
    labelContent(`Payee noted: ${BILL_IBAN}`, ProvenanceSource.tool('notes.read'), Trust.Trusted),
    labelContent(BILL, ProvenanceSource.mcp('files'), Trust.Untrusted),
  ]);
  /** An earlier call that paid the bill's IBAN under a plan naming the bill: the taint ledger records the IBAN. */
  const payTheBill = (app: Awaited<ReturnType<typeof batchApp>>) =>
    app.call(
      'payments.send',
      { steps: [{ capability: 'payments.send', arguments: { recipient: ['mcp:files'], amount: ['mcp:files'] } }] },
      { recipient: BILL_IBAN, amount: 120 },
    );

  it('attack: a key the taint ledger holds is refused, though a trusted result echoes it', async () => {
    const app = await batchApp({ taint: new InMemoryTaintLedger() });
    expect((await payTheBill(app)).executed).toBe(true);

    const outcome = await app.pay(noSources, { amount: 120, payees: { [BILL_IBAN]: true } }, echoed);

    expect(outcome.executed).toBe(false);
    expect(app.paid).toEqual([]);
    expect(app.reasons()).toContainEqual(expect.stringMatching(REFUSED_KEY));
    // As the same string is as a value.
    expect((await app.pay(noSources, { amount: 120, payees: {}, memo: BILL_IBAN }, echoed)).executed).toBe(false);
  });

  it('control: the same key passes when the ledger holds no taint of it (the trusted result vouches for it)', async () => {
    const app = await batchApp({ taint: new InMemoryTaintLedger() });
    const outcome = await app.pay(noSources, { amount: 120, payees: { [BILL_IBAN]: true } }, echoed);

    expect(outcome.executed).toBe(true);
    expect(app.paid).toEqual([{ amount: 120, payees: { [BILL_IBAN]: true } }]);
  });
});
