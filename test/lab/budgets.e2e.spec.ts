import { describe, expect, it } from '@jest/globals';
import { DecisionRecordEntity } from '@verdict/nestjs/typeorm';
import request from 'supertest';
import { INJECTED_BILL_FILE } from '../../apps/storefront-lab/src/quarantine/bill-file.js';
import { BillReadingQuarantinedModel } from '../../apps/storefront-lab/src/quarantine/bill-reading-quarantined-model.js';
import { CUSTOMER_72, bootLab } from './lab-app.fixture.js';

const CUSTOMER_91 = { customerId: 91, tenant: 'acme' } as const;
type Standing = { name: string; measure: string; limit: number; used: number; remaining: number; whenExceeded: string };
const byName = (budgets: Standing[]) => Object.fromEntries(budgets.map((budget) => [budget.name, budget]));

describe('storefront lab: the budget page', () => {
  it('shows every budget of the actor untouched before any run: the spend budget and both model budgets', async () => {
    const { app } = await bootLab();
    const { body } = await request(app.getHttpServer())
      .get('/api/labs/budgets')
      .query({ customerId: 72, tenant: 'acme' })
      .expect(200);
    expect(body.budgets.map((b: Standing) => [b.name, b.measure, b.limit, b.used, b.remaining])).toEqual([
      ['orders.goodwill_credit', 'spend', 2_000, 0, 2_000],
      ['assistant tokens', 'tokens', 4_000, 0, 4_000],
      ['assistant cost', 'cost', 10_000, 0, 10_000],
    ]);
    expect(byName(body.budgets)['assistant tokens'].whenExceeded).toMatch(/before the model is called/);
  });

  it('attack: goodwill credit past the spend budget is throttled at stage budget; control: the first two are granted', async () => {
    // One instant for the whole test: the budgets' daily window cannot roll over between the calls and the standing.
    const now = new Date();
    const { app, dataSource } = await bootLab({ clock: () => now });
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/budgets/credits')
      .send({ actor: CUSTOMER_72, orderId: 1002, amountCents: 800, count: 3 })
      .expect(200);
    expect(body.credits.calls.map((c: { outcome: string }) => c.outcome)).toEqual(['executed', 'executed', 'throttle']);
    expect(body.credits.summary).toBe('€16.00 of credit granted for 3 proposal(s) of €8.00');
    expect(byName(body.budgets)['orders.goodwill_credit']).toMatchObject({ used: 1_600, remaining: 400 });
    const refused = await dataSource
      .getRepository(DecisionRecordEntity)
      .findBy({ capability: 'orders.goodwill_credit', disposition: 'throttle' });
    expect(refused.map((record) => [record.stage, record.reason, record.rateLimitRemaining])).toEqual([
      ['budget', 'daily goodwill budget exhausted', 0],
    ]);
    // Another customer's budget is their own.
    const other = await request(app.getHttpServer())
      .get('/api/labs/budgets')
      .query({ customerId: 91, tenant: 'acme' })
      .expect(200);
    expect(byName(other.body.budgets)['orders.goodwill_credit']).toMatchObject({ used: 0, remaining: 2_000 });
  });

  it('attack: the assistant is stopped before the model call once its token budget has no room; control: earlier questions are answered and only their usage is spent', async () => {
    // One instant for the whole test: the budgets' daily window cannot roll over between the calls and the standing.
    const now = new Date();
    const { app } = await bootLab({ clock: () => now });
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/budgets/assistant')
      .send({ actor: CUSTOMER_72, question: 'When will my order ship?', count: 10 })
      .expect(200);
    const runs = body.assistant as Array<{
      outcome: string;
      reservedTokens: number;
      usedTokens: number | null;
      modelCalls: number;
      stoppedBy: { code: string; budget: string } | null;
    }>;
    const answered = runs.filter((run) => run.outcome === 'answered');
    const stopped = runs.filter((run) => run.outcome === 'stopped');
    expect(answered.length).toBeGreaterThan(0);
    expect(stopped.length).toBeGreaterThan(0);
    expect(runs.slice(0, answered.length).every((run) => run.outcome === 'answered')).toBe(true);
    for (const run of answered) expect(run.usedTokens!).toBeLessThan(run.reservedTokens);
    expect(stopped.map((run) => [run.modelCalls, run.stoppedBy])).toEqual(
      stopped.map(() => [0, { code: 'VERDICT_MODEL_BUDGET_EXCEEDED', budget: 'assistant tokens' }]),
    );
    const tokens = byName(body.budgets)['assistant tokens']!;
    const spent = answered.reduce((sum, run) => sum + run.usedTokens!, 0);
    // Only the reported usage is spent: every reservation's unused part was released.
    expect(tokens).toMatchObject({ used: spent, remaining: 4_000 - spent });
    expect(tokens.remaining).toBeLessThan(answered[0]!.reservedTokens);
    expect(byName(body.budgets)['assistant cost']!.used).toBeGreaterThan(0);
    // Customer 91 shares the store's cost budget, not 72's token budget.
    const other = await request(app.getHttpServer())
      .post('/api/labs/budgets/assistant')
      .send({ actor: CUSTOMER_91, question: 'When will my order ship?', count: 1 })
      .expect(200);
    expect(other.body.assistant.map((run: { outcome: string }) => run.outcome)).toEqual(['answered']);
  });

  it("the quarantined model's bill reading counts against the customer's model budgets: the usage it reported is spent", async () => {
    // One instant for the whole test: the budgets' daily window cannot roll over between the run and the standing.
    const now = new Date();
    const { app } = await bootLab({ clock: () => now });
    const reader = app.get(BillReadingQuarantinedModel);
    const read = reader.invoke.bind(reader);
    const reported: number[] = [];
    reader.invoke = async (input) => {
      const answer = await read(input);
      reported.push(answer.usage_metadata.input_tokens + answer.usage_metadata.output_tokens);
      return answer;
    };
    const run = await request(app.getHttpServer())
      .post('/api/labs/quarantine/runs')
      .send({ actor: CUSTOMER_72, file: INJECTED_BILL_FILE })
      .expect(200);
    expect(run.body.with.extractions).toBe(1);
    const { body } = await request(app.getHttpServer())
      .get('/api/labs/budgets')
      .query({ customerId: 72, tenant: 'acme' })
      .expect(200);
    expect(reported).toHaveLength(1);
    expect(byName(body.budgets)['assistant tokens']).toMatchObject({ used: reported[0] });
    expect(byName(body.budgets)['assistant cost']!.used).toBeGreaterThan(0);
  });

  it("a bill reading the customer's token budget has no room for stops that run, answered 200 and nothing paid; control: the readings before it paid", async () => {
    const now = new Date();
    const { app } = await bootLab({ clock: () => now });
    const runs: { with: { extractions: number; payments: unknown[]; summary: string } }[] = [];
    // Each reading spends what it reported (a few hundred tokens) of the 4,000: within twenty, one has no room.
    while (runs.length < 20 && !runs.at(-1)?.with.summary.includes('stopped')) {
      const run = await request(app.getHttpServer())
        .post('/api/labs/quarantine/runs')
        .send({ actor: CUSTOMER_72, file: INJECTED_BILL_FILE })
        .expect(200);
      runs.push(run.body);
    }
    const stopped = runs.at(-1)!.with;
    expect(stopped.summary).toMatch(/^The run stopped before the bill was read: the model budget "assistant tokens"/);
    expect(stopped).toMatchObject({ extractions: 0, payments: [] });
    expect(runs.length).toBeGreaterThan(1);
    expect(runs.slice(0, -1).every((run) => run.with.extractions === 1 && run.with.payments.length === 1)).toBe(true);
  });

  it('refuses a malformed request with 400 and changes nothing', async () => {
    const { app } = await bootLab();
    await request(app.getHttpServer())
      .post('/api/labs/budgets/credits')
      .send({ actor: CUSTOMER_72, orderId: 1002, amountCents: -5, count: 1 })
      .expect(400);
    await request(app.getHttpServer()).get('/api/labs/budgets').query({ customerId: 5, tenant: 'acme' }).expect(400);
    const { body } = await request(app.getHttpServer())
      .get('/api/labs/budgets')
      .query({ customerId: 72, tenant: 'acme' })
      .expect(200);
    expect(byName(body.budgets)['orders.goodwill_credit']).toMatchObject({ used: 0 });
  });
});
