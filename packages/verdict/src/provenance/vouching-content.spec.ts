import { describe, expect, it } from '@jest/globals';
import { Trust } from '../context-release/trust.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { analyzeInfluence } from './analyze-influence.js';
import { ContextLabeller } from './context-labeller.js';
import type { ProvenanceTrackerWiring } from './provenance-tracker-wiring.js';
import { labelContent } from './labelled-content.js';
import { ProvenanceSource } from './provenance-source.js';
import { ProvenanceWindow } from './provenance-window.js';
import { CALLER, PLAN_SOURCE, QUARANTINE_SOURCE } from './vouching-content.js';

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
    ['a sub-agent’s input, written by its caller', CALLER],
    ['the application’s system prompt', ProvenanceSource.application('system-prompt')],
    ['a trusted tool result', ProvenanceSource.tool('accounts.view')],
  ])('utility: a value in %s is derived', (_name, source) => {
    expect(derivedWith(source)).toBe(true);
  });

  it('attack: no agent answers under the sub-agent input’s source, agent:caller (its answers would vouch)', () => {
    const wiring = {} as ProvenanceTrackerWiring;
    expect(() => new ContextLabeller(wiring, { agent: 'caller' })).toThrow(VerdictConfigurationError);
    expect(new ContextLabeller(wiring, { agent: 'researcher' }).agent.toString()).toBe('agent:researcher');
  });
});
