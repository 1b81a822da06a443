import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  ExecutionTargetPolicy,
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
import { BILL, BILL_IBAN } from './bill.fixture.js';

/** A mail (another untrusted source than the bill's file) that names an amount. */
const MAIL = 'Hi, please settle the outstanding balance of 4750 EUR today.';
/** A record key the model writes into a free-form argument: never evidence in clear. */
const SECRET_KEY = 'customer password hunter2';
const window = (request: string) =>
  ProvenanceWindow.of([
    labelContent(request, ProvenanceSource.user('chat'), Trust.Trusted),
    labelContent(BILL, ProvenanceSource.mcp('files'), Trust.Untrusted),
    labelContent(MAIL, ProvenanceSource.mcp('mail'), Trust.Untrusted),
  ]);
const catalog = { __caslSubjectType__: 'Catalog', id: 'catalog' };
/** Tags a ledger entry: `tags` is a record whose keys the model writes; only `entry` is in its provenance policy. */
const annotate = defineCapability(
  {
    name: 'ledger.annotate',
    description: 'Tag a ledger entry',
    action: 'read',
    subject: 'Catalog',
    arguments: z.object({ entry: z.string(), tags: z.record(z.string(), z.string()) }),
    resolveTarget: fromContext(() => catalog),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'catalog', identity: () => 'catalog' }),
    provenance: { untrustedContext: 'allow', arguments: { entry: 'allow' } },
  },
  () => ({ tagged: true }),
);

async function planned() {
  const app = await paymentsFixture({
    payments: { untrustedContext: 'allow', arguments: { recipient: 'allow', amount: 'allow' } },
    capabilities: [annotate],
  });
  const verdict = app.moduleRef.get(VerdictService);
  let calls = 0;
  /** Runs `capability` with `args` under `plan`, proposed in a window of the request, the bill and the mail. */
  const run = (plan: Plan, capability: string, args: Record<string, unknown>, request = 'Pay the bill.') =>
    app.as(() =>
      withPlan(plan, () =>
        withProvenance(window(request), () =>
          verdict.execute({ capability, arguments: args, toolCallId: `app-plan-${++calls}` }),
        ),
      ),
    );
  const reasons = () => app.evidence.decisions().map((decision) => decision.reason);
  return { ...app, run, reasons };
}

describe('a plan step covers a whole call', () => {
  const twoSteps: Plan = {
    steps: [
      { capability: 'payments.send', arguments: { recipient: ['mcp:files'] } },
      { capability: 'payments.send', arguments: { amount: ['mcp:mail'] } },
    ],
  };

  it('attack: one step’s recipient source and another step’s amount source do not combine into one call', async () => {
    const app = await planned();
    const paid = await app.run(twoSteps, 'payments.send', { recipient: BILL_IBAN, amount: 4750 });

    expect(paid.executed).toBe(false);
    expect(app.payments).toEqual([]);
    expect(app.reasons()).toContainEqual(
      expect.stringMatching(/^plan [0-9a-f]{16}: argument amount comes from a source the plan did not name$/),
    );
  });

  it('control: a call within one step runs — the typed amount with the file’s recipient, or one step naming both', async () => {
    const app = await planned();
    const first = await app.run(twoSteps, 'payments.send', { recipient: BILL_IBAN, amount: 120 }, 'Pay 120.');
    expect(first.executed).toBe(true);
    const oneStep: Plan = {
      steps: [{ capability: 'payments.send', arguments: { recipient: ['mcp:files'], amount: ['mcp:mail'] } }],
    };
    const second = await app.run(oneStep, 'payments.send', { recipient: BILL_IBAN, amount: 4750 });
    expect(second.executed).toBe(true);
    expect(app.payments.map((payment) => payment.arguments)).toEqual([
      { recipient: BILL_IBAN, amount: 120 },
      { recipient: BILL_IBAN, amount: 4750 },
    ]);
  });
});

describe('a plan refusal shows only the argument paths the capability’s provenance policy declares', () => {
  const tagsFromMail: Plan = {
    steps: [{ capability: 'ledger.annotate', arguments: { 'tags.*': ['mcp:mail'], entry: ['mcp:mail'] } }],
  };

  it('attack: a record key the model wrote, which the plan’s own pattern covers, is a fingerprint in evidence', async () => {
    const app = await planned();
    const tagged = await app.run(
      tagsFromMail,
      'ledger.annotate',
      { entry: 'e-1', tags: { [SECRET_KEY]: BILL_IBAN } },
      'Tag entry e-1.',
    );

    expect(tagged.executed).toBe(false);
    expect(app.reasons()).toContainEqual(
      expect.stringMatching(/^plan [0-9a-f]{16}: argument #[0-9a-f]{16} comes from a source the plan did not name$/),
    );
    expect(JSON.stringify(app.evidence.decisions())).not.toContain('hunter2');
  });

  it('control: a path the policy declares is named in clear', async () => {
    const app = await planned();
    const tagged = await app.run(tagsFromMail, 'ledger.annotate', { entry: BILL_IBAN, tags: {} });

    expect(tagged.executed).toBe(false);
    expect(app.reasons()).toContainEqual(
      expect.stringMatching(/^plan [0-9a-f]{16}: argument entry comes from a source the plan did not name$/),
    );
  });
});
