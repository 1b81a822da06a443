import { describe, expect, it } from '@jest/globals';
import {
  Decision,
  Disposition,
  fingerprint,
  fingerprintString,
  NonCanonicalValueError,
  Stage,
  type ExecutionResult,
} from '@verdict/nestjs';
import { InvalidObservationError } from './invalid-observation.error.js';
import { Observation } from './observation.js';
import { ObservedToolCall } from './observed-tool-call.js';

const proposal = { capability: 'orders.view', arguments: { orderId: 1001 }, toolCallId: 'call_1' };

function permitted(output: unknown): ExecutionResult {
  return {
    executed: true,
    capability: 'orders.view',
    correlationId: 'c-1',
    decision: Decision.permit(Stage.Execution),
    output,
  };
}

function denied(): ExecutionResult {
  return {
    executed: false,
    capability: 'orders.view',
    correlationId: 'c-2',
    decision: Decision.deny(Stage.Proposal, 'not the owner'),
  };
}

describe('Observation', () => {
  describe('fromExecutionResult', () => {
    it('takes the decision, the executed flag and the tool call from a permitted result', () => {
      const observation = Observation.fromExecutionResult(permitted({ status: 'shipped' }), proposal);

      expect([observation.disposition, observation.stage, observation.executed]).toEqual([
        Disposition.Permit,
        Stage.Execution,
        true,
      ]);
      expect(observation.toolCalls).toEqual([
        expect.objectContaining({
          capability: 'orders.view',
          argumentsFingerprint: fingerprint(proposal.arguments),
          disposition: Disposition.Permit,
          executed: true,
        }),
      ]);
      expect(observation.output).toEqual({ status: 'shipped' });
      expect(observation.outputFingerprint).toBe(fingerprint({ status: 'shipped' }));
    });

    it('records no output for a proposal that did not execute', () => {
      const observation = Observation.fromExecutionResult(denied(), proposal);

      expect([observation.disposition, observation.stage, observation.executed]).toEqual([
        Disposition.Deny,
        Stage.Proposal,
        false,
      ]);
      expect([observation.output, observation.outputFingerprint]).toEqual([undefined, null]);
      expect(observation.toolCalls[0]).toEqual(
        expect.objectContaining({ disposition: Disposition.Deny, executed: false }),
      );
    });

    it('judges the output the caller passes instead (e.g. the tool message the model saw)', () => {
      const observation = Observation.fromExecutionResult(denied(), {
        ...proposal,
        output: 'Sorry, I cannot do that.',
      });
      expect(observation.outputFingerprint).toBe(fingerprint('Sorry, I cannot do that.'));
    });

    it('hashes the side effects the application names and carries effect events as given', () => {
      const effects = [{ type: 'effect', effect: 'read', resource: 'order:1001' }];
      const observation = Observation.fromExecutionResult(permitted('ok'), {
        ...proposal,
        sideEffects: ['email.sent', 'email.sent'],
        effects,
      });

      expect(observation.sideEffectFingerprints).toEqual([
        fingerprintString('email.sent'),
        fingerprintString('email.sent'),
      ]);
      expect(observation.effects).toEqual(effects);
    });

    it('needs the proposed arguments', () => {
      expect(() => Observation.fromExecutionResult(denied(), {} as never)).toThrow(InvalidObservationError);
    });

    it('refuses an executor output that is not plain JSON unless an output is passed', () => {
      expect(() => Observation.fromExecutionResult(permitted(new Map()), proposal)).toThrow(NonCanonicalValueError);
      expect(Observation.fromExecutionResult(permitted(new Map()), { ...proposal, output: 'rendered' }).output).toBe(
        'rendered',
      );
    });
  });

  describe('of', () => {
    it('describes an agent loop: the final decision defaults to the last call, executed to any call', () => {
      const observation = Observation.of({
        output: 'Your order has shipped.',
        toolCalls: [
          {
            capability: 'orders.view',
            arguments: { orderId: 1002 },
            disposition: Disposition.Permit,
            stage: Stage.Execution,
            executed: true,
          },
          {
            capability: 'orders.cancel',
            arguments: { orderId: 1001 },
            disposition: Disposition.Deny,
            stage: Stage.Proposal,
            executed: false,
          },
        ],
      });

      expect([observation.disposition, observation.stage, observation.executed]).toEqual([
        Disposition.Deny,
        Stage.Proposal,
        true,
      ]);
      expect(observation.toolCalls.map((call) => call.capability)).toEqual(['orders.view', 'orders.cancel']);
    });

    it('lets explicit values win over the defaults', () => {
      const observation = Observation.of({
        disposition: Disposition.RequireConfirmation,
        executed: true, // a protected action outside the listed calls
        toolCalls: [{ capability: 'orders.view', arguments: {}, disposition: Disposition.Deny, executed: false }],
      });
      expect([observation.disposition, observation.executed]).toEqual([Disposition.RequireConfirmation, true]);
    });

    it('refuses executed: false beside a tool call that executed, so notExecuted() cannot pass on it', () => {
      const cancelled = { capability: 'orders.cancel', arguments: { orderId: 1001 }, disposition: Disposition.Permit };
      expect(() => Observation.of({ executed: false, toolCalls: [{ ...cancelled, executed: true }] })).toThrow(
        new InvalidObservationError('executed is false but a tool call executed'),
      );
      // The control: the same call, blocked before it executed, agrees with executed: false.
      const blocked = Observation.of({ executed: false, toolCalls: [{ ...cancelled, executed: false }] });
      expect([blocked.executed, blocked.toolCalls[0]?.executed]).toEqual([false, false]);
    });

    it('describes a run without tool calls', () => {
      const observation = Observation.of();
      expect([
        observation.disposition,
        observation.executed,
        observation.toolCalls,
        observation.sideEffectFingerprints,
      ]).toEqual([null, false, [], []]);
    });

    it('accepts an unprotected tool (no Verdict decision) that executed', () => {
      const observation = Observation.of({
        toolCalls: [{ capability: 'orders.view', arguments: { orderId: 1001 }, disposition: null, executed: true }],
      });
      expect([observation.disposition, observation.executed]).toEqual([null, true]);
    });

    it('accepts an argument fingerprint instead of raw arguments', () => {
      const call = ObservedToolCall.of({
        capability: 'orders.view',
        argumentsFingerprint: fingerprint({ orderId: 1 }),
        disposition: Disposition.Deny,
        executed: false,
      });
      expect(call.argumentsFingerprint).toBe(fingerprint({ orderId: 1 }));
    });

    it.each([
      ['an unknown disposition', { disposition: 'allow' }],
      ['an unknown stage', { stage: 'later' }],
      ['a non-boolean executed flag', { executed: 'yes' }],
      ['an empty side-effect name', { sideEffects: [''] }],
      ['side effects that are not a list', { sideEffects: 'email.sent' }],
      [
        'a tool call without capability',
        { toolCalls: [{ arguments: {}, disposition: Disposition.Deny, executed: false }] },
      ],
      [
        'a tool call that executed although throttled',
        { toolCalls: [{ capability: 'a', arguments: {}, disposition: Disposition.Throttle, executed: true }] },
      ],
      [
        'a malformed argument fingerprint',
        {
          toolCalls: [{ capability: 'a', argumentsFingerprint: 'abc', disposition: Disposition.Deny, executed: false }],
        },
      ],
      [
        'a tool call without arguments',
        { toolCalls: [{ capability: 'a', disposition: Disposition.Deny, executed: false }] },
      ],
    ])('rejects %s', (_label, init) => {
      expect(() => Observation.of(init as never)).toThrow(InvalidObservationError);
    });

    it('rejects output that is not plain JSON', () => {
      expect(() => Observation.of({ output: { at: new Date(0) } as never })).toThrow(NonCanonicalValueError);
    });
  });
});
