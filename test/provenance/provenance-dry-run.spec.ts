import { describe, expect, it } from '@jest/globals';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import {
  ProvenanceRule,
  ProvenanceWindow,
  UntrustedInfluenceDetected,
  VerdictService,
  withProvenance,
} from '@verdict/nestjs';
import { OWN_IBAN, paymentsFixture } from './payments.fixture.js';

/** Payments whose untrusted context is allowed (the stage runs and records), under an unobserved window. */
async function setup() {
  const fixture = await paymentsFixture({
    payments: { untrustedContext: ProvenanceRule.Allow },
    imports: [EventEmitterModule.forRoot()],
  });
  const events: unknown[] = [];
  fixture.moduleRef.get(EventEmitter2).onAny((_name, event) => events.push(event));
  const verdict = fixture.moduleRef.get(VerdictService);
  const proposal = { capability: 'payments.send', arguments: { recipient: OWN_IBAN, amount: 10 } };
  const inWindow = <T>(fn: () => Promise<T>) => fixture.as(() => withProvenance(ProvenanceWindow.unobserved(), fn));
  return { ...fixture, events, verdict, proposal, inWindow };
}

describe('a dry run (evaluate) has no durable effect but its decision records', () => {
  it('decides an influenced payment without touching the ledger, raising an event or executing', async () => {
    const { verdict, proposal, inWindow, ledger, evidence, events, payments } = await setup();
    const result = await inWindow(() => verdict.evaluate(proposal));

    expect(result).toMatchObject({ executed: false, decision: { disposition: 'permit' } });
    expect(ledger.records()).toEqual([]);
    expect(events).toEqual([]);
    expect(payments).toEqual([]);
    // What docs say a dry run records: its decisions, as tool kind `evaluation`, and nothing executed.
    const records = evidence.decisions();
    expect(records.length).toBeGreaterThan(0);
    expect(new Set(records.map((record) => record.toolKind))).toEqual(new Set(['evaluation']));
    expect(records.map((record) => record.stage)).toContain('provenance');
    expect(new Set(records.map((record) => record.correlationId))).toEqual(new Set([result.correlationId]));
  });

  it('records the same influence in the ledger and raises its event on a real run (control)', async () => {
    const { verdict, proposal, inWindow, ledger, evidence, events, payments } = await setup();
    const result = await inWindow(() => verdict.execute(proposal));

    expect(result).toMatchObject({ executed: true, decision: { disposition: 'permit' } });
    expect(payments).toHaveLength(1);
    expect(ledger.records().length).toBeGreaterThan(0);
    expect(new Set(ledger.records().map((record) => record.correlationId))).toEqual(new Set([result.correlationId]));
    expect(events.filter((event) => event instanceof UntrustedInfluenceDetected)).toHaveLength(1);
    expect(evidence.decisions().map((record) => record.toolKind)).toContain('service');
  });
});
