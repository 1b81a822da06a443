import { describe, expect, it } from '@jest/globals';
import { ProvenanceSource, ProvenanceWindow, Source, Trust, analyzeInfluence, labelContent } from '@verdict/nestjs';

// A tool result may hold a long run of text without a space: a signed transaction in hex, a base64 attachment. The
// value-like tokens of untrusted content are read from each `@`, or where a run of their characters starts, so that
// such a run costs its length once (ADR 0202). These specs show that an injected value glued after such a run, after
// punctuation or after another address, is still found by the reverse check that reads those tokens: a value split
// across two arguments (`split-link.agent.spec.ts`).

const ASKED = 'Tell the customer how to claim the refund. Our support desk is support@shop.example.';
const user = ProvenanceSource.user('chat');
const wallet = ProvenanceSource.of(Source.external('wallet'));
const window = (untrusted: string) =>
  ProvenanceWindow.of([labelContent(ASKED, user, Trust.Trusted), labelContent(untrusted, wallet, Trust.Untrusted)]);
const influenced = (args: Record<string, unknown>, untrusted: string) =>
  analyzeInfluence(window(untrusted), args).arguments.map(({ path }) => path);

/** 100 KB of hex digits, as a signed transaction or a hash list is written: no space, no dot, no `@`. */
const HEX = Array.from({ length: 12_500 }, (_, i) => ((i * 2654435761) >>> 0).toString(16).padStart(8, '0')).join('');
/** 100 KB of letters only (no digit: a token that must hold one is found nowhere in it). */
const LETTERS = 'qwertyuiopasdfghjklzxcvbnm'.repeat(3_847);

/** The injected address split across two arguments, neither of which holds it whole. */
const SPLIT = { subject: 'Refund: contact billing@evil-ref', body: 'unds.example to claim it' };

describe('an injected value glued after a long run without a space (ADR 0202)', () => {
  it.each([
    ['in parentheses after hex', `{"raw":"0x${HEX}(billing@evil-refunds.example)"}`],
    ['after mailto: after hex', `0x${HEX};mailto:billing@evil-refunds.example`],
    ['after letters only', `${LETTERS}<billing@evil-refunds.example>`],
    ['after another address', `0x${HEX} a@x.example+billing@evil-refunds.example`],
    ['after another address and an underscore', `0x${HEX} a@x.example_billing@evil-refunds.example`],
  ])('attack (analysis): the address %s is found split across two arguments', (_, page) => {
    expect(influenced(SPLIT, page)).toEqual(['subject', 'body']);
  });

  it('attack (analysis): an identifier glued after punctuation that ends a run of letters is found split', () => {
    const page = `${LETTERS}:ref-77812-claim`;
    expect(influenced({ subject: 'Quote ref-778', body: '12-claim in the reply' }, page)).toEqual(['subject', 'body']);
  });

  it('utility (analysis): the same split, of the address the user gave, is not influence', () => {
    const page = `{"raw":"0x${HEX}(support@shop.example)"}`;
    expect(influenced({ subject: 'Refund: contact support@sh', body: 'op.example to claim it' }, page)).toEqual([]);
    expect(influenced(SPLIT, `{"raw":"0x${HEX}"}`)).toEqual([]);
  });
});
