import { describe, expect, it } from '@jest/globals';
import { Trust } from '../../packages/verdict/src/context-release/trust.js';
import { analyzeInfluence } from '../../packages/verdict/src/provenance/analyze-influence.js';
import { ContextLabeller } from '../../packages/verdict/src/provenance/context-labeller.js';
import type { ProvenanceTrackerWiring } from '../../packages/verdict/src/provenance/provenance-tracker-wiring.js';
import { labelContent } from '../../packages/verdict/src/provenance/labelled-content.js';
import { ProvenanceLabels } from '../../packages/verdict/src/provenance/provenance-labels.js';
import { ProvenanceSource } from '../../packages/verdict/src/provenance/provenance-source.js';
import { ProvenanceWindow } from '../../packages/verdict/src/provenance/provenance-window.js';
import { canonicalForm } from '../../packages/verdict/src/provenance/canonical-form.js';

const IBAN = 'DE89370400440532013000';
const user = ProvenanceSource.user('principal');

function labeller() {
  const labels = new ProvenanceLabels();
  const ctx = { actor: { id: 'alice' }, tenant: 'acme' };
  const wiring = {
    labels,
    context: () => ctx,
    principal: () => 'alice-key',
    resultProvenance: () => undefined,
    clock: () => new Date(),
  } as unknown as ProvenanceTrackerWiring;
  return { labels, l: new ContextLabeller(wiring, { agent: 'sub' }) };
}

describe('cycles of delegated inputs', () => {
  it.each([3, 4])('k=%i tasks in the sub-agent window, each delegated again from it', async (k) => {
    const { labels, l } = labeller();
    const outer = ProvenanceWindow.of([labelContent('Pay the supplier their deposit.', user, Trust.Trusted)]);
    const tasks = Array.from({ length: k }, (_, i) => `Task ${i}: pay 25 to ${IBAN}.`);
    for (const t of tasks) await l.labelInput(t, outer);
    const sub = ProvenanceWindow.of(tasks.flatMap((t) => labels.recall(t, 'alice-key')!));
    for (const t of tasks) await l.labelInput(t, sub); // the sub-agent hands each of its tasks on again
    const start = performance.now();
    const derived = analyzeInfluence(sub, { recipient: IBAN }).derivation[0]!.derived;
    console.log(`k=${k}`, derived, `${(performance.now() - start).toFixed(0)} ms`);
    expect(derived).toBe(false);
  }, 600_000);
});

describe('canonicalForm ReDoS in IBAN_TEXT', () => {
  it('a review of 200 words "de89" + 41 letters', () => {
    const text = `${'DE89' + 'A'.repeat(41)} `.repeat(200);
    const start = performance.now();
    canonicalForm(text);
    console.log('200 words', text.length, 'bytes', `${(performance.now() - start).toFixed(0)} ms`);
  });
  it('labelContent of the same text (what a tool result goes through)', () => {
    const text = `${'de89' + 'x'.repeat(41)} `.repeat(400);
    const start = performance.now();
    labelContent(text, ProvenanceSource.tool('fetch'), Trust.Untrusted);
    console.log('400 words', text.length, 'bytes', `${(performance.now() - start).toFixed(0)} ms`);
  });
});
