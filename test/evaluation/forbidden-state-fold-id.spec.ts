import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { fingerprint } from '@verdict/nestjs';
import {
  AssertionDefinitionError,
  EvaluationBaseline,
  EvaluationCase,
  Observation,
  SecuritySuite,
  forbiddenStateNotReached,
} from '@verdict/evaluation';

// ADR 0200 (amended): `forbidden-state-not-reached` is a built-in's id, so it must name the fold that ran. It took any
// state model and kept the caller's live object: a model whose threshold was raised (or one changed after the case
// was defined) let a leak pass under the built-in's id, and a baseline compared it as no change.

const fixture = (name: string) => readFileSync(new URL(`../fixtures/trajectory/${name}`, import.meta.url), 'utf8');
/** The scenario's state model: the export of customer records to an outside destination is forbidden. */
const strong = () => parse(fixture('customer_export_exfiltration.scenario.yaml')).expected.state_model;
const events = JSON.parse(fixture('customer_export_exfiltration_attack.json')).events;
const leaked = () => Observation.of({ effects: events });
const held = () => Observation.of({ effects: [] });
const input = { trustedSetup: { customerId: 72 }, untrustedInput: { orderId: 1001 } };
const run = (evaluationCase: EvaluationCase) =>
  new SecuritySuite('exports', '1', [evaluationCase]).run({ clock: () => new Date(0) });
const attack = (runner: () => Observation, model: unknown, id?: string) =>
  EvaluationCase.attack('customers/export-exfiltration', '1', input, runner, [forbiddenStateNotReached(model, id)]);
/** The same model with a threshold no run reaches: it forbids nothing in practice. */
const neutered = <T>(model: T): T => {
  (model as { forbidden: { all: { greater_than: number }[] }[] }).forbidden[0]!.all[0]!.greater_than = 1e9;
  return model;
};
const idsOf = async (evaluationCase: EvaluationCase) =>
  (await run(evaluationCase)).cases[0]!.assertions.map((assertion) => assertion.id);

describe('forbidden-state-not-reached names its model and keeps it as it was given', () => {
  it('attack: a neutered model is another id, so the leak it passes blocks against the baseline (removed coverage)', async () => {
    const baseline = EvaluationBaseline.fromJson((await run(attack(held, strong()))).toJson());
    const current = await run(attack(leaked, neutered(strong())));

    expect(current.cases[0]!.status).toBe('passed');
    const comparison = baseline.compare(JSON.parse(current.toJson()));
    expect(comparison.blocking).toBe(true);
    expect(comparison.changes.map((change: { kind: string }) => change.kind)).toEqual([
      'removed_coverage',
      'added_coverage',
    ]);
  });

  it('attack: the model changed after the case was defined changes nothing the case judges, nor its id', async () => {
    const model = strong();
    const evaluationCase = attack(leaked, model);
    const before = await idsOf(attack(leaked, strong()));
    neutered(model);

    const result = await run(evaluationCase);
    expect(result.cases[0]!.status).toBe('failed');
    expect(result.cases[0]!.assertions.map((assertion) => assertion.id)).toEqual(before);
  });

  it.each(['forbidden-state-not-reached', 'forbidden-state-not-reached:exports'])(
    'attack: the id %s given for a model is refused: it would name another fold',
    (id) => {
      expect(() => forbiddenStateNotReached(neutered(strong()), id)).toThrow(AssertionDefinitionError);
    },
  );

  it("control: the id is the pseudonym of the model's canonical fingerprint, alike whatever the key order", async () => {
    const model = strong();
    const reordered = Object.fromEntries(Object.entries(model).reverse());
    const id = `forbidden-state-not-reached:${fingerprint(model).slice(0, 16)}`;

    expect(await idsOf(attack(leaked, model))).toEqual([id]);
    expect(forbiddenStateNotReached(reordered).id).toBe(id);
    expect(forbiddenStateNotReached(strong(), id).id).toBe(id);
  });

  it('control: the same model, held and then leaked, is the same claim: the leak is a blocking regression', async () => {
    const baseline = EvaluationBaseline.fromJson((await run(attack(held, strong()))).toJson());
    const current = await run(attack(leaked, strong()));

    expect(current.cases[0]!.status).toBe('failed');
    const comparison = baseline.compare(JSON.parse(current.toJson()));
    expect(comparison.blocking).toBe(true);
    expect(comparison.changes.map((change: { kind: string }) => change.kind)).toEqual(['behavioural_regression']);
  });

  it("control: an id of the application's own is reported as given, and its model is kept as given too", async () => {
    const model = strong();
    const evaluationCase = attack(leaked, model, 'no-customer-export');
    neutered(model);

    const result = await run(evaluationCase);
    expect(result.cases[0]!.assertions.map((assertion) => assertion.id)).toEqual(['no-customer-export']);
    expect(result.cases[0]!.status).toBe('failed');
  });
});
