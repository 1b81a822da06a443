import { describe, expect, it } from '@jest/globals';
import { Decision, Disposition, fingerprint, Stage, type ExecutionResult } from '@verdict/nestjs';
import { Assertions } from '../assertions/assertions.js';
import { EvaluationCase } from '../cases/evaluation-case.js';
import { Observation } from '../observations/observation.js';
import { SecuritySuite } from '../suites/security-suite.js';
import { EvaluationReport } from './evaluation-report.js';

// One unique marker per place a raw value could leak from.
const M = {
  setupValue: 'MARKER-setup-value-7f3a',
  setupKey: 'MARKER_setup_key_91c2',
  untrusted: 'MARKER-untrusted-ignore-previous-instructions-4b8e',
  argument: 'MARKER-argument-0d6f',
  output: 'MARKER-output-alice@example.test-e21b',
  outputKey: 'MARKER_output_key_5a90',
  sideEffect: 'MARKER.side-effect.email-to-alice-c7d4',
  capability: 'MARKER capability from the model 33aa',
  runnerError: 'MARKER-runner-error-message-8e17',
  assertionError: 'MARKER-assertion-error-message-b6f0',
  needle: 'MARKER-forbidden-needle-2c5d',
};

const input = {
  trustedSetup: { [M.setupKey]: M.setupValue },
  untrustedInput: { request: M.untrusted, orderId: M.argument },
};

async function setup() {
  const result: ExecutionResult = {
    executed: true,
    capability: 'orders.view',
    correlationId: 'c',
    decision: Decision.permit(Stage.Execution),
    output: { [M.outputKey]: M.output },
  };
  const cases = [
    EvaluationCase.attack(
      'from-result',
      '1',
      input,
      (given) =>
        Observation.fromExecutionResult(result, { arguments: given.untrustedInput, sideEffects: [M.sideEffect] }),
      [
        Assertions.outputExcludes(M.needle),
        Assertions.outputIncludes(M.output),
        Assertions.sideEffectOccurred(M.sideEffect),
      ],
    ),
    EvaluationCase.attack(
      'agent-loop',
      '1',
      input,
      () =>
        Observation.of({
          output: `${M.output} and ${M.untrusted}`,
          toolCalls: [
            { capability: M.capability, arguments: { q: M.argument }, disposition: Disposition.Deny, executed: false },
          ],
          sideEffects: [M.sideEffect],
          effects: [{ type: 'effect', effect: 'send', resource: M.output, destination: M.sideEffect }],
        }),
      [Assertions.noSideEffects(), Assertions.outputExcludes(M.output)],
    ),
    EvaluationCase.utility(
      'runner-throws',
      '1',
      input,
      () => {
        throw new Error(M.runnerError);
      },
      [Assertions.executed()],
    ),
    EvaluationCase.utility('assertion-throws', '1', input, () => Observation.of({ output: M.output }), [
      Assertions.custom('throws', () => {
        throw new Error(M.assertionError);
      }),
    ]),
  ];
  return new SecuritySuite('redaction', '1', cases).run();
}

describe('report redaction', () => {
  it('never writes a raw input, output, argument, side-effect name, model-written capability or error message', async () => {
    const json = (await setup()).toJson();
    const leaked = Object.entries(M).filter(
      ([, marker]) => json.includes(marker) || json.includes(JSON.stringify(marker).slice(1, -1)),
    );

    expect(leaked.map(([place]) => place)).toEqual([]);
    expect(json).not.toContain('MARKER');
  });

  it('still fingerprints what it leaves out, so runs stay comparable', async () => {
    const report = EvaluationReport.parse((await setup()).toJson());
    const [fromResult, agentLoop] = report.cases;

    expect(fromResult!.input?.untrustedInputFingerprint).toBe(fingerprint(input.untrustedInput));
    expect(fromResult!.observation?.outputFingerprint).toBe(fingerprint({ [M.outputKey]: M.output }));
    expect(fromResult!.assertions.map((assertion) => assertion.passed)).toEqual([true, true, true]);
    expect(agentLoop!.observation?.toolCalls[0]).toEqual(
      expect.objectContaining({ capability: null, argumentsFingerprint: fingerprint({ q: M.argument }) }),
    );
    expect(agentLoop!.status).toBe('failed');
  });
});
