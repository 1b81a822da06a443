import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ATTACKER_IBAN } from '../../apps/storefront-lab/src/provenance/injected-review.scenario.js';
import { INJECTED_BILL_FILE, LEGITIMATE_BILL, billFile } from '../../apps/storefront-lab/src/quarantine/bill-file.js';
import type { PayBillLabView } from '../../apps/storefront-lab/src/runs/lab-run.js';
import { CUSTOMER_72, bootLab } from './lab-app.fixture.js';

async function payBill(file: string, quarantinedModelMisled = false): Promise<PayBillLabView> {
  const { app } = await bootLab();
  const { body } = await request(app.getHttpServer())
    .post('/api/labs/quarantine/runs')
    .send({ actor: CUSTOMER_72, file, quarantinedModelMisled })
    .expect(200);
  return body as PayBillLabView;
}

const INSTRUCTION_LINE = INJECTED_BILL_FILE.split('\n').at(-1)!;

describe('storefront lab: pay the bill in a file, with and without quarantine', () => {
  it('without quarantine: the assistant obeys the file, and the injected IBAN is put to the customer, who rejects it', async () => {
    const { without } = await payBill(INJECTED_BILL_FILE);
    expect(without.decidingModelReadTheFile).toBe(true);
    expect(without.decidingModelInput).toContain(ATTACKER_IBAN);
    const injected = without.calls.find((call) => call.obeyedInjection)!;
    expect(injected.proposal.arguments.iban).toBe(ATTACKER_IBAN);
    expect(injected.outcome).toBe('rejected by the customer');
    const asked = without.confirmations.find((c) => c.arguments.iban === ATTACKER_IBAN)!;
    // The customer's screen showed the file the IBAN was copied from, instruction line included.
    expect(asked.shown.map((item) => item.text).join('\n')).toContain(INSTRUCTION_LINE);
    expect(asked.decision).toBe('rejected');
    expect(without.payments.map((p) => p.iban)).not.toContain(ATTACKER_IBAN);
    expect(without.payments).toEqual([LEGITIMATE_BILL]);
    expect(without.confirmations).toHaveLength(2);
  });

  it('with quarantine: the deciding model never reads the file; the bill is paid once after one confirmation showing its passage', async () => {
    const { with: quarantined } = await payBill(INJECTED_BILL_FILE);
    expect(quarantined.decidingModelReadTheFile).toBe(false);
    expect(quarantined.decidingModelInput).not.toContain('ASSISTANT INSTRUCTION');
    expect(quarantined.decidingModelInput).not.toContain(ATTACKER_IBAN);
    expect(quarantined.calls.some((call) => call.obeyedInjection)).toBe(false);
    expect(quarantined.calls[0]!.modelSaw).toMatch(/^\{"quarantined":"q-/);
    expect(quarantined.extractions).toBe(1);
    expect(quarantined.confirmations).toHaveLength(1);
    const [asked] = quarantined.confirmations;
    expect(asked!.arguments).toMatchObject({ iban: LEGITIMATE_BILL.iban, amountCents: LEGITIMATE_BILL.amountCents });
    expect(asked!.shown.some((item) => item.passage && item.text.includes(`IBAN: ${LEGITIMATE_BILL.iban}`))).toBe(true);
    expect(asked!.decision).toBe('approved');
    expect(quarantined.payments).toEqual([LEGITIMATE_BILL]);
  });

  it('attack on the quarantined model: the misled extraction names the injected IBAN, shown with its passage, and is never paid', async () => {
    const { with: quarantined } = await payBill(INJECTED_BILL_FILE, true);
    expect(quarantined.decidingModelInput).not.toContain('ASSISTANT INSTRUCTION');
    const [asked] = quarantined.confirmations;
    expect(quarantined.confirmations).toHaveLength(1);
    expect(asked!.arguments.iban).toBe(ATTACKER_IBAN);
    // The passage the value was read from, instruction included, is on the customer's screen next to the value.
    expect(asked!.shown.some((item) => item.passage && item.text.includes(INSTRUCTION_LINE))).toBe(true);
    expect(asked!.decision).toBe('rejected');
    expect(quarantined.payments).toEqual([]);
    expect(quarantined.summary).toContain('Nothing was paid.');
  });

  it('control: the legitimate bill is paid once with one confirmation, with and without quarantine', async () => {
    const view = await payBill(billFile(LEGITIMATE_BILL));
    for (const run of [view.without, view.with]) {
      expect(run.payments).toEqual([LEGITIMATE_BILL]);
      expect(run.confirmations.map((c) => c.decision)).toEqual(['approved']);
    }
    expect(view.with.decidingModelReadTheFile).toBe(false);
    expect(view.without.decidingModelReadTheFile).toBe(true);
  });

  it('with quarantine, a file without a bill: the summary says the quarantined model found no bill, and nothing is paid', async () => {
    const { with: quarantined } = await payBill('Hello, nothing to pay here.');
    expect(quarantined.extractions).toBe(1);
    expect(quarantined.calls.at(-1)!.modelSaw).toMatch(/^No bill value/);
    expect(quarantined.confirmations).toEqual([]);
    expect(quarantined.payments).toEqual([]);
    expect(quarantined.summary).toContain('the quarantined model (no tools) found no bill in it. Nothing was paid.');
    expect(quarantined.summary).not.toContain('typed bill');
  });

  it('control: with quarantine, a real bill still reads as a typed bill the quarantined model answered', async () => {
    const { with: quarantined } = await payBill(billFile(LEGITIMATE_BILL));
    expect(quarantined.summary).toContain('the quarantined model (no tools) answered a typed bill.');
    expect(quarantined.summary).toContain(
      `Paid ${LEGITIMATE_BILL.amountCents} cents to ${LEGITIMATE_BILL.payee} (${LEGITIMATE_BILL.iban}).`,
    );
  });

  it('answers 400 to a file that is not text, running nothing', async () => {
    const { app } = await bootLab();
    await request(app.getHttpServer())
      .post('/api/labs/quarantine/runs')
      .send({ actor: CUSTOMER_72, file: 42 })
      .expect(400);
  });
});
