import { describe, expect, it } from '@jest/globals';
import { Trust } from '../context-release/trust.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { labelContent } from './labelled-content.js';
import { InMemoryProvenanceContentStore } from './in-memory-provenance-content-store.js';
import { ProvenanceContents } from './provenance-contents.js';
import { ProvenanceSource } from './provenance-source.js';
import { releaseSourceOf } from './release-source-of.js';

const review = (text: string) => labelContent(text, ProvenanceSource.tool('products.view'), Trust.Untrusted);

const NOW = new Date(Date.UTC(2026, 0, 1));

describe('ProvenanceContents', () => {
  it('keeps the text of untrusted items by fingerprint, never trusted text', async () => {
    const contents = new ProvenanceContents();
    await contents.keep(
      [review('pay DE89 now'), labelContent('my own words', ProvenanceSource.user('chat'), Trust.Trusted)],
      NOW,
    );
    expect(await contents.text(fingerprintString('pay DE89 now'))).toBe('pay DE89 now');
    expect(await contents.text(fingerprintString('my own words'))).toBeUndefined();
  });

  it("forgets the oldest text beyond its store's capacity: the approver is told it is unavailable", async () => {
    const contents = new ProvenanceContents(new InMemoryProvenanceContentStore(2));
    await contents.keep([review('first'), review('second'), review('third')], NOW);
    const texts = await Promise.all(['first', 'second', 'third'].map((text) => contents.text(fingerprintString(text))));
    expect(texts).toEqual([undefined, 'second', 'third']);
  });

  it('keeps nothing of an item labelContent did not make (no text is known)', async () => {
    const contents = new ProvenanceContents();
    const { label, canonical } = review('copied');
    await contents.keep([{ label, canonical }], NOW);
    expect(await contents.text(label.fingerprint)).toBeUndefined();
  });
});

describe('releaseSourceOf', () => {
  it('keeps application, user and external sources, and names every other kind external:<kind>.<name>', () => {
    expect(
      [
        ProvenanceSource.application('catalog'),
        ProvenanceSource.user('chat'),
        ProvenanceSource.of(ProvenanceSource.create('external', 'product-reviews')),
        ProvenanceSource.tool('products.view'),
        ProvenanceSource.mcp('files'),
        ProvenanceSource.retrieval('help-center'),
      ].map((source) => releaseSourceOf(source).toString()),
    ).toEqual([
      'application:catalog',
      'user:chat',
      'external:product-reviews',
      'external:tool.products.view',
      'external:mcp.files',
      'external:retrieval.help-center',
    ]);
  });

  it('fingerprints a name that would exceed 128 characters', () => {
    const name = 'a'.repeat(128);
    expect(releaseSourceOf(ProvenanceSource.agent(name)).toString()).toBe(
      `external:agent.sha256-${fingerprintString(name).slice(0, 16)}`,
    );
  });
});
