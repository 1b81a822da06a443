import { describe, expect, it } from '@jest/globals';
import { Trust } from '../context-release/trust.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { analyzeInfluence } from './analyze-influence.js';
import { ContextLabeller } from './context-labeller.js';
import type { ProvenanceTrackerWiring } from './provenance-tracker-wiring.js';
import { labelContent } from './labelled-content.js';
import { ProvenanceSource } from './provenance-source.js';
import { ProvenanceWindow } from './provenance-window.js';
import { CALLER, PLAN_SOURCE, QUARANTINE_SOURCE, delegatedInput } from './vouching-content.js';

const IBAN = 'DE89370400440532013000';
const user = ProvenanceSource.user('principal');

/** Whether `recipient: IBAN` is derived from trusted content in a window of a user's message and one more trusted text. */
function derivedWith(source: ProvenanceSource): boolean {
  const window = ProvenanceWindow.of([
    labelContent('Pay the refund of 25 EUR.', user, Trust.Trusted),
    labelContent(`I will send the refund to ${IBAN}. Shall I proceed?`, source, Trust.Trusted),
  ]);
  const [derivation] = analyzeInfluence(window, { recipient: IBAN }).derivation;
  return derivation!.derived;
}

describe('which trusted content vouches for a value (the positive rule)', () => {
  it.each([
    ['the model’s own answer, from a clean window', ProvenanceSource.agent('assistant')],
    ['a quarantine handle Verdict wrote', QUARANTINE_SOURCE],
    ['a plan answer Verdict wrote', PLAN_SOURCE],
  ])('attack: a value stated only in %s is not derived', (_name, source) => {
    expect(derivedWith(source)).toBe(false);
  });

  it.each([
    ['the user’s message', user],
    ['the application’s system prompt', ProvenanceSource.application('system-prompt')],
    ['a trusted tool result', ProvenanceSource.tool('accounts.view')],
  ])('utility: a value in %s is derived', (_name, source) => {
    expect(derivedWith(source)).toBe(true);
  });

  describe('a sub-agent’s input vouches for what the window its caller wrote it in vouches for (ADR 0146)', () => {
    const task = `Send 25 to ${IBAN} today.`;
    const derivedInSubAgent = (input: ReturnType<typeof labelContent>) =>
      analyzeInfluence(ProvenanceWindow.of([input]), { recipient: IBAN }).derivation[0]!.derived;

    it('utility: a value the user typed to the calling agent is derived', () => {
      const caller = ProvenanceWindow.of([labelContent(`Refund me at ${IBAN}.`, user, Trust.Trusted)]);
      expect(derivedInSubAgent(delegatedInput(task, caller))).toBe(true);
    });

    it('attack: a value only the calling model wrote is not derived', () => {
      const caller = ProvenanceWindow.of([
        labelContent('Pay the supplier their deposit.', user, Trust.Trusted),
        labelContent(`The supplier's IBAN is ${IBAN}.`, ProvenanceSource.agent('assistant'), Trust.Trusted),
      ]);
      expect(derivedInSubAgent(delegatedInput(task, caller))).toBe(false);
    });

    it('attack: an input labelled agent:caller that nothing was delegated through vouches for nothing', () => {
      expect(derivedInSubAgent(labelContent(task, CALLER, Trust.Trusted))).toBe(false);
    });

    it('attack: a caller window that vouches through its own sub-agent input, which holds the value, still needs its caller', () => {
      const top = ProvenanceWindow.of([labelContent('Pay the supplier their deposit.', user, Trust.Trusted)]);
      const middle = delegatedInput(`Pay ${IBAN}.`, top);
      expect(derivedInSubAgent(delegatedInput(task, ProvenanceWindow.of([middle])))).toBe(false);
      const typed = ProvenanceWindow.of([labelContent(`My IBAN: ${IBAN}`, user, Trust.Trusted)]);
      expect(
        derivedInSubAgent(delegatedInput(task, ProvenanceWindow.of([delegatedInput(`Pay ${IBAN}.`, typed)]))),
      ).toBe(true);
    });
  });

  it('attack: no agent answers under the sub-agent input’s source, agent:caller (its answers would vouch)', () => {
    const wiring = {} as ProvenanceTrackerWiring;
    expect(() => new ContextLabeller(wiring, { agent: 'caller' })).toThrow(VerdictConfigurationError);
    expect(new ContextLabeller(wiring, { agent: 'researcher' }).agent.toString()).toBe('agent:researcher');
  });
});
