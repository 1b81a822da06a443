import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import {
  ProvenanceSource,
  QuarantineExtractionError,
  QuarantineService,
  QuarantinedExtraction,
  fingerprintString,
} from '@verdict/nestjs';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { paymentsFixture } from '../provenance/payments.fixture.js';
import { BILL, BILL_IBAN, billSchema } from './bill.fixture.js';

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

/**
 * The module's `actorKey` looks the actor up in a customer directory, which goes down (`outage`) when told to; the
 * quarantined model answers `answer`, and the directory goes down as it does when `downWhileAnswering` is set.
 */
async function setup(answer: string, { downWhileAnswering = false } = {}) {
  const outage = new Error('customer directory unavailable');
  const directory = { up: true };
  const model = new ScriptedChatModel(
    [
      () => {
        if (downWhileAnswering) directory.up = false;
        return { text: answer };
      },
    ],
    { label: 'quarantined' },
  );
  const app = await paymentsFixture({
    imports: [EventEmitterModule.forRoot()],
    quarantine: { model },
    actorKey: (actor: { id: string }) => {
      if (!directory.up) throw outage;
      return `customer:${actor.id}`;
    },
  });
  booted.push(app.moduleRef);
  const quarantine = app.moduleRef.get(QuarantineService);
  const events: QuarantinedExtraction[] = [];
  app.moduleRef
    .get(EventEmitter2)
    .on(QuarantinedExtraction.event, (event: QuarantinedExtraction) => events.push(event));
  const handle = await app.as(async () => quarantine.quarantine(BILL, ProvenanceSource.mcp('files')));
  const extract = () => app.as(() => quarantine.extract(handle, billSchema));
  return { extract, events, directory, outage };
}

const BILL_ANSWER = JSON.stringify({ iban: BILL_IBAN, amount: 120 });

describe("QuarantinedExtraction names the actor the handle's owner was found by (ADR 0208)", () => {
  it('attack: the directory going down as the quarantined model answers never leaves the event attributed to no one', async () => {
    const { extract, events } = await setup(BILL_ANSWER, { downWhileAnswering: true });

    const extraction = await extract();

    expect(extraction.value).toEqual({ iban: BILL_IBAN, amount: 120 });
    expect(events.map(({ outcome, actorFingerprint }) => [outcome, actorFingerprint])).toEqual([
      ['extracted', fingerprintString('customer:alice')],
    ]);
  });

  it('attack: a failed extraction as the directory goes down is attributed to the actor too', async () => {
    const { extract, events } = await setup('not json at all', { downWhileAnswering: true });

    await expect(extract()).rejects.toBeInstanceOf(QuarantineExtractionError);

    expect(events.map(({ outcome, actorFingerprint }) => [outcome, actorFingerprint])).toEqual([
      ['not_json', fingerprintString('customer:alice')],
    ]);
  });

  it("control: a directory already down fails the extraction with the key's error, before the model; no event", async () => {
    const { extract, events, directory, outage } = await setup(BILL_ANSWER);
    directory.up = false;

    await expect(extract()).rejects.toBe(outage);

    expect(events).toEqual([]);
  });

  it('control: with the directory up, the extraction and its event are as they always were', async () => {
    const { extract, events } = await setup(BILL_ANSWER);

    expect((await extract()).value).toEqual({ iban: BILL_IBAN, amount: 120 });
    expect(events).toMatchObject([{ outcome: 'extracted', actorFingerprint: fingerprintString('customer:alice') }]);
  });
});
