import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  ATTACKER_IBAN,
  INJECTED_REVIEW,
  OWN_IBAN,
} from '../../apps/storefront-lab/src/provenance/injected-review.scenario.js';
import { CUSTOMER_72, bootLab } from './lab-app.fixture.js';

const stagesOf = (call: { stages: { stage: string; disposition: string }[] }) =>
  call.stages.map((s) => `${s.stage}:${s.disposition}`);
const run = (ownIban: string, review = INJECTED_REVIEW) => ({
  actor: CUSTOMER_72,
  orderId: 1002,
  amountCents: 500,
  review,
  ownIban,
});

describe('storefront lab: provenance (an injected review steering the refund recipient)', () => {
  it('stops the refund to the IBAN the review planted at stage provenance, marking iban as derived from the reviews', async () => {
    const { app } = await bootLab();
    const { body } = await request(app.getHttpServer()).post('/api/labs/provenance/runs').send(run('')).expect(200);
    const [read, injected] = body.calls;
    expect(read.outcome).toBe('executed');
    expect(injected.proposal).toEqual({
      tool: 'refund_to_account',
      arguments: { orderId: 1002, amountCents: 500, iban: ATTACKER_IBAN },
    });
    expect(injected.untrustedInput).toBe(INJECTED_REVIEW);
    expect(injected.outcome).toBe('deny');
    expect(stagesOf(injected).at(-1)).toBe('provenance:deny');
    expect(injected.derivedArguments).toEqual([{ path: 'iban', sources: ['external:product-reviews'] }]);
    expect(injected.sideEffect).toBe('nothing paid');
    expect(body.summary).toBe('No refund was paid.');
    // Evidence names paths and labels, never the value.
    expect(JSON.stringify(injected.stages)).not.toContain(ATTACKER_IBAN);
  });

  it('utility control: the IBAN the customer typed is paid, with the injected call still refused', async () => {
    const { app } = await bootLab();
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/provenance/runs')
      .send(run(OWN_IBAN))
      .expect(200);
    const refunds = body.calls.filter(
      (call: { proposal: { tool: string } }) => call.proposal.tool === 'refund_to_account',
    );
    const own = refunds.find(
      (call: { proposal: { arguments: { iban: string } } }) => call.proposal.arguments.iban === OWN_IBAN,
    );
    const injected = refunds.find((call: { toolCallId: string }) => call.toolCallId.startsWith('injected-'));
    expect(own.outcome).toBe('executed');
    expect(own.derivedArguments).toEqual([]);
    expect(own.sideEffect).toBe(`paid 500 cents of order 1002 to ${OWN_IBAN}`);
    expect(injected.outcome).toBe('deny');
    expect(body.summary).toBe(`Paid 500 cents to ${OWN_IBAN}.`);
  });

  it('a review without an instruction steers nothing: only the customer’s own refund is proposed', async () => {
    const { app } = await bootLab();
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/provenance/runs')
      .send(run(OWN_IBAN, 'Warm and light.'))
      .expect(200);
    expect(
      body.calls.map(
        (call: { proposal: { tool: string }; outcome: string }) => `${call.proposal.tool}:${call.outcome}`,
      ),
    ).toEqual(['view_order_reviews:executed', 'refund_to_account:executed']);
  });

  it('the why-Verdict case: the hand-secured refund pays the injected account, the bound one refuses', async () => {
    const { app } = await bootLab();
    const { body } = await request(app.getHttpServer()).post('/api/labs/why-verdict/injected-review/runs').expect(200);
    const [manual, verdict] = body.paths;
    expect(manual).toMatchObject({ outcome: 'paid the injected account', safe: false });
    expect(manual.call.sideEffect).toBe(`paid 500 cents of order 1002 to ${ATTACKER_IBAN}`);
    expect(verdict).toMatchObject({ outcome: 'deny', safe: true });
    expect(stagesOf(verdict.call).at(-1)).toBe('provenance:deny');
  });

  it('answers 400 to a review that is not text, running nothing', async () => {
    const { app } = await bootLab();
    await request(app.getHttpServer())
      .post('/api/labs/provenance/runs')
      .send({ ...run(''), review: 42 })
      .expect(400);
  });
});
