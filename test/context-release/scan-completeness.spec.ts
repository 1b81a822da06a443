import { describe, expect, it } from '@jest/globals';
import {
  type ContextTransformer,
  ContextReleaser,
  DataClass,
  DEFAULT_DETECTORS,
  Destination,
  InMemoryEvidenceRecorder,
  type PiiDetector,
  PlaceholderVault,
  ReleasePolicy,
  Source,
  Trust,
} from '@verdict/nestjs';

// docs/context-release.md §4: `scan` replaces every detection in the fields it marks — their keys and integers included,
// and what a replacement reveals — and a tokenized value restores only where the release holds it.

const profile = Source.application('customer-profile');
const local = Destination.connection('ollama-local', 'local-machine');
const piiToLocal = () =>
  ReleasePolicy.route(profile, local).allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] });
const piiAndSensitiveToLocal = () =>
  ReleasePolicy.route(profile, local).allow({ classes: [DataClass.Pii, DataClass.Sensitive], trust: [Trust.Trusted] });

function setup(policy: ReleasePolicy = piiToLocal(), detectors: readonly PiiDetector[] = DEFAULT_DETECTORS) {
  const recorder = new InMemoryEvidenceRecorder();
  const releaser = new ContextReleaser({ policies: [policy], recorder, detectors });
  const base = (payload: Record<string, unknown>) =>
    releaser.release(payload).source(profile).trust(Trust.Trusted).classify(DataClass.Pii);
  return { base, records: () => recorder.releases() };
}

/** What a model writing `placeholder` gets back from the vault. */
const restoredFrom = (vault: PlaceholderVault, placeholder: string) => ({
  size: vault.size,
  listed: vault.placeholdersIn(`to ${placeholder}`),
  to: vault.restore({ to: placeholder }).to,
});

describe('scan: keys and integers of a scanned field (F1)', () => {
  it('attack: a key holding an e-mail address in a scanned subtree does not leave: the object is replaced whole', async () => {
    const { base } = setup();
    const vault = new PlaceholderVault();
    const payload = { notes: { 'ada@example.org': 'met at the fair', text: 'write to ada@example.org' } };
    const result = await base(payload).only(['notes']).scan(['notes'], { mode: 'tokenize', vault }).to(local);
    expect(result).toMatchObject({ permitted: true, payload: { notes: '[REDACTED]' } });
    expect(result.json).not.toContain('example.org');
  });

  it('attack: the same map reached by a wildcard allowlist path is replaced whole too', async () => {
    const { base } = setup();
    const payload = { notes: { 'ada@example.org': 'met at the fair', text: 'hello' } };
    const result = await base(payload).only(['notes.*']).scan(['notes.*']).to(local);
    expect(result).toMatchObject({ permitted: true, payload: { notes: '[REDACTED]' } });
    expect(result.json).not.toContain('example.org');
  });

  it('attack: a scanned top-level key holding data refuses the release (the payload keeps its own keys)', async () => {
    const { base, records } = setup();
    const result = await base({ 'ada@example.org': 'met at the fair' }).only(['*']).scan(['*']).to(local);
    expect(result).toMatchObject({ permitted: false, payload: {}, reason: 'detector_fired:EMAIL' });
    expect(records()[0]).toMatchObject({ disposition: 'deny', reason: 'detector_fired:EMAIL' });
  });

  it('attack: a card number stored as a JSON number is scanned as its digits', async () => {
    const { base } = setup(piiAndSensitiveToLocal());
    const result = await base({ payment: { card: 4111111111111111, note: 'paid' } })
      .only(['payment'])
      .scan(['payment'])
      .to(local);
    expect(result).toMatchObject({ permitted: true, payload: { payment: { card: '[REDACTED]', note: 'paid' } } });
    expect(result.json).not.toContain('4111111111111111');
  });

  it.each([['notes'], ['notes.*.text']])(
    'attack: a key a scan path’s wildcard matches, above the scanned leaf, does not leave (only %s)',
    async (only) => {
      const { base } = setup();
      const vault = new PlaceholderVault();
      const payload = { notes: { 'ada@example.org': { text: 'hi' } } };
      const result = await base(payload).only([only]).scan(['notes.*.text'], { mode: 'tokenize', vault }).to(local);
      expect(result).toMatchObject({ permitted: true, payload: { notes: '[REDACTED]' } });
      expect(result.json).not.toContain('example.org');
    },
  );

  it('control: keys a scan path’s wildcard matches that are ordinary words are kept, each leaf scanned', async () => {
    const { base } = setup();
    const vault = new PlaceholderVault();
    const payload = { notes: { first: { text: 'write to ada@example.org', by: 'bob@example.org' } } };
    const result = await base(payload).only(['notes']).scan(['notes.*.text'], { mode: 'tokenize', vault }).to(local);
    expect(result.payload).toEqual({ notes: { first: { by: 'bob@example.org', text: 'write to <EMAIL_1>' } } });
  });

  it('control: a scanned subtree whose keys are ordinary words keeps them, each value scanned', async () => {
    const { base } = setup();
    const vault = new PlaceholderVault();
    const payload = { notes: { author: 'Ada', text: 'write to ada@example.org', count: 3, done: false } };
    const result = await base(payload).only(['notes']).scan(['notes'], { mode: 'tokenize', vault }).to(local);
    expect(result.payload).toEqual({ notes: { author: 'Ada', count: 3, done: false, text: 'write to <EMAIL_1>' } });
    expect(vault.restore(result.payload)).toEqual(payload);
  });

  it('control: an integer in which nothing is found stays a number', async () => {
    const { base, records } = setup(piiAndSensitiveToLocal());
    const result = await base({ order: { quantity: 12, total: 4200 } })
      .only(['order'])
      .scan(['order'])
      .to(local);
    expect(result.payload).toEqual({ order: { quantity: 12, total: 4200 } });
    expect(records()[0]).toMatchObject({ transformationCount: 0 });
  });
});

describe('scan: every number as canonical JSON writes it, not only a safe integer', () => {
  it.each([
    ['with a fraction', 4111111111111111.5],
    ['beyond the safe integers', 4111111111111120400],
  ])('attack: a card number stored as a number %s is scanned as its text', async (_, card) => {
    const { base } = setup(piiAndSensitiveToLocal());
    const result = await base({ payment: { card, note: 'paid' } })
      .only(['payment'])
      .scan(['payment'])
      .to(local);
    expect(result).toMatchObject({ permitted: true, payload: { payment: { note: 'paid' } } });
    expect(typeof (result.payload.payment as { card: unknown }).card).toBe('string');
    expect(result.json).not.toMatch(/4111 ?1111/);
  });

  it.each([
    ['with a fraction', 4111111111111111.5],
    ['beyond the safe integers', 4111111111111120400],
  ])(
    'attack: post-scrub validation refuses such a number, unscanned, on a route that does not release cards (%s)',
    async (_, card) => {
      const { base, records } = setup();
      const result = await base({ payment: { card } }).only(['payment']).to(local);
      expect(result).toMatchObject({ permitted: false, payload: {}, reason: 'detector_fired:CARD' });
      expect(records()[0]).toMatchObject({ disposition: 'deny', reason: 'detector_fired:CARD' });
    },
  );

  it('control: an amount with a fraction, or a large count, stays a number', async () => {
    const { base, records } = setup();
    const order = { total: 12.5, tax: -0.25, views: 2 ** 60, ratio: 1e-7 };
    const result = await base({ order }).only(['order']).scan(['order']).to(local);
    expect(result).toMatchObject({ permitted: true, payload: { order } });
    expect(records()[0]).toMatchObject({ transformationCount: 0 });
  });
});

describe('scan: a value revealed by replacing its neighbour (F2)', () => {
  it('attack: a phone number joined to an IBAN is redacted too', async () => {
    const { base } = setup();
    const note = 'Refund to DE89 3704 0044 0532 0130 00 415 555 2671 please';
    const result = await base({ note }).only(['note']).scan(['note']).to(local);
    expect(result).toMatchObject({ permitted: true, payload: { note: 'Refund to [REDACTED] [REDACTED] please' } });
  });

  it('attack: a card joined to an IBAN is redacted too', async () => {
    const { base } = setup(piiAndSensitiveToLocal());
    const note = 'IBAN DE89 3704 0044 0532 0130 00 4111 1111 1111 1111';
    const result = await base({ note }).only(['note']).scan(['note']).to(local);
    expect(result).toMatchObject({ permitted: true, payload: { note: 'IBAN [REDACTED] [REDACTED]' } });
  });

  it('attack: tokenized, both values take placeholders, and both restore once released', async () => {
    const { base } = setup(piiAndSensitiveToLocal());
    const vault = new PlaceholderVault();
    const note = 'IBAN DE89 3704 0044 0532 0130 00 4111 1111 1111 1111';
    const result = await base({ note }).only(['note']).scan(['note'], { mode: 'tokenize', vault }).to(local);
    expect(result).toMatchObject({ permitted: true, payload: { note: 'IBAN <IBAN_1> <CARD_1>' } });
    expect(vault.restore(result.payload)).toEqual({ note });
  });

  it('attack: a field in which detection keeps finding something is refused, not released', async () => {
    // A detector that also fires on what scanning wrote: every pass finds something.
    const shouting: PiiDetector = {
      name: 'shouting',
      label: 'LOUD',
      dataClass: DataClass.Pii,
      detect: (text) =>
        [...text.matchAll(/[A-Z]{3,}/g)].map((m) => ({
          detector: 'shouting',
          label: 'LOUD',
          dataClass: DataClass.Pii,
          start: m.index,
          end: m.index + m[0].length,
        })),
    };
    const { base, records } = setup(piiToLocal(), [shouting]);
    const result = await base({ note: 'call NOW' }).only(['note']).scan(['note']).to(local);
    expect(result).toMatchObject({ permitted: false, payload: {}, reason: 'detector_fired:LOUD' });
    expect(records()[0]).toMatchObject({ disposition: 'deny', reason: 'detector_fired:LOUD' });
  });

  it('control: one value is replaced once, as before', async () => {
    const { base, records } = setup();
    const result = await base({ note: 'write to ada@example.org' }).only(['note']).scan(['note']).to(local);
    expect(result).toMatchObject({ permitted: true, payload: { note: 'write to [REDACTED]' } });
    expect(records()[0]).toMatchObject({ transformationCount: 1 });
  });
});

describe('scan: a tokenized value restores only where it was released (F3)', () => {
  const dropNote: ContextTransformer = { name: 'drop-note', transform: (released) => ({ subject: released.subject }) };

  it('attack: an unscanned field spelling the placeholder does not make a dropped value restorable', async () => {
    const { base } = setup();
    const vault = new PlaceholderVault();
    const payload = { note: 'write to ada@example.org', subject: 'Re: <EMAIL_1>' };
    const result = await base(payload)
      .only(['note', 'subject'])
      .scan(['note'], { mode: 'tokenize', vault })
      .transform(dropNote)
      .to(local);
    expect(result).toMatchObject({ permitted: true, payload: { subject: 'Re: <EMAIL_1>' } });
    expect(restoredFrom(vault, '<EMAIL_1>')).toEqual({ size: 0, listed: [], to: '<EMAIL_1>' });
  });

  it('attack: a scanned field in which nothing is found, spelling the placeholder, does not either', async () => {
    const { base } = setup();
    const vault = new PlaceholderVault();
    const payload = { note: 'write to ada@example.org', subject: 'Re: <EMAIL_1>' };
    const result = await base(payload)
      .only(['note', 'subject'])
      .scan(['note', 'subject'], { mode: 'tokenize', vault })
      .transform(dropNote)
      .to(local);
    expect(result).toMatchObject({ permitted: true, payload: { subject: 'Re: <EMAIL_1>' } });
    expect(restoredFrom(vault, '<EMAIL_1>')).toEqual({ size: 0, listed: [], to: '<EMAIL_1>' });
  });

  it('attack: a placeholder an object key of the input also spells is never confirmed, although its value left', async () => {
    const { base } = setup();
    const vault = new PlaceholderVault();
    const payload = { note: 'write to ada@example.org', tags: { '<EMAIL_1>': true } };
    const result = await base(payload).only(['note', 'tags']).scan(['note'], { mode: 'tokenize', vault }).to(local);
    expect(result).toMatchObject({
      permitted: true,
      payload: { note: 'write to <EMAIL_1>', tags: { '<EMAIL_1>': true } },
    });
    expect(restoredFrom(vault, '<EMAIL_1>')).toEqual({ size: 0, listed: [], to: '<EMAIL_1>' });
  });

  it('attack: an unscanned list element spelling the placeholder, moved where the dropped one was, does not either', async () => {
    const { base } = setup();
    const vault = new PlaceholderVault();
    const payload = { notes: ['write to ada@example.org', 'Re: <EMAIL_1>'] };
    const dropFirst: ContextTransformer = {
      name: 'drop-first',
      transform: (released) => ({ notes: (released.notes as string[]).slice(1) }),
    };
    const result = await base(payload)
      .only(['notes'])
      .scan(['notes.0'], { mode: 'tokenize', vault })
      .transform(dropFirst)
      .to(local);
    expect(result).toMatchObject({ permitted: true, payload: { notes: ['Re: <EMAIL_1>'] } });
    expect(restoredFrom(vault, '<EMAIL_1>')).toEqual({ size: 0, listed: [], to: '<EMAIL_1>' });
  });

  it('control: a tokenized value that was released restores', async () => {
    const { base } = setup();
    const vault = new PlaceholderVault();
    const payload = { note: 'write to ada@example.org', subject: 'Re: order A-1' };
    const result = await base(payload).only(['note', 'subject']).scan(['note'], { mode: 'tokenize', vault }).to(local);
    expect(result.payload).toEqual({ note: 'write to <EMAIL_1>', subject: 'Re: order A-1' });
    expect(restoredFrom(vault, '<EMAIL_1>')).toEqual({ size: 1, listed: ['<EMAIL_1>'], to: 'ada@example.org' });
  });

  it('control: a transformer that shortens the text or removes an earlier list element keeps it restorable', async () => {
    const { base } = setup();
    const vault = new PlaceholderVault();
    const payload = { notes: ['call ada@example.org', 'then bob@example.org, done'] };
    const keepLast: ContextTransformer = {
      name: 'keep-last',
      transform: (released) => ({ notes: [(released.notes as string[])[1]!.slice(0, 15)] }),
    };
    const result = await base(payload)
      .only(['notes'])
      .scan(['notes'], { mode: 'tokenize', vault })
      .transform(keepLast)
      .to(local);
    expect(result.payload).toEqual({ notes: ['then <EMAIL_2>,'] });
    expect(restoredFrom(vault, '<EMAIL_2>')).toEqual({ size: 1, listed: ['<EMAIL_2>'], to: 'bob@example.org' });
    expect(restoredFrom(vault, '<EMAIL_1>').to).toBe('<EMAIL_1>');
  });

  it('control: every row of a large tokenized list restores', async () => {
    // Confirming looks each placeholder up: a list of many rows is released in one pass, not rows × rows searches.
    const { base } = setup();
    const vault = new PlaceholderVault();
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ id: i, note: `write to user${i}@example.org` }));
    const result = await base({ rows }).only(['rows']).scan(['rows.*.note'], { mode: 'tokenize', vault }).to(local);
    expect(result.permitted).toBe(true);
    expect((result.payload.rows as { note: string }[])[19_999]!.note).toBe('write to <EMAIL_20000>');
    expect(vault.size).toBe(20_000);
    expect(vault.restore(result.payload)).toEqual({ rows });
  });
});

describe('scan: placeholder-shaped text a permitted release carries is literal in later releases', () => {
  /** One tokenizing release into `vault` of `payload`'s `released` fields, `scanned` among them. */
  const tokenizing =
    (vault: PlaceholderVault) =>
    (payload: Record<string, unknown>, released: string[], scanned: string[] = released) =>
      setup().base(payload).only(released).scan(scanned, { mode: 'tokenize', vault }).to(local);

  it('attack: a held placeholder that a later release spells in a scanned field with nothing found is given up', async () => {
    const vault = new PlaceholderVault();
    const release = tokenizing(vault);
    // Refused (a card on a route that does not release it): ada's placeholder stays held, never given out.
    const refused = await release(
      { note: 'write to ada@example.org', other: '4111 1111 1111 1111' },
      ['note', 'other'],
      ['note'],
    );
    expect(refused.permitted).toBe(false);
    const injected = await release({ subject: 'forward all to <EMAIL_1>' }, ['subject']);
    expect(injected.payload).toEqual({ subject: 'forward all to <EMAIL_1>' });

    const later = await release({ note: 'cc ada@example.org' }, ['note']);

    expect(later.payload).toEqual({ note: 'cc <EMAIL_2>' });
    expect(vault.restore(injected.payload)).toEqual({ subject: 'forward all to <EMAIL_1>' });
    expect(vault.restore(later.payload)).toEqual({ note: 'cc ada@example.org' });
  });

  it.each([
    ['a scanned field in which nothing was found', ['note', 'subject']],
    ['an unscanned field', ['note']],
  ])('attack: a placeholder never issued that %s spells is never issued later', async (_where, scanned) => {
    const vault = new PlaceholderVault();
    const release = tokenizing(vault);
    await release({ subject: 'send the refund to <EMAIL_1>', note: 'nothing here' }, ['subject', 'note'], scanned);

    const later = await release({ note: 'customer ada@example.org' }, ['note']);

    expect(later.payload).toEqual({ note: 'customer <EMAIL_2>' });
    expect(restoredFrom(vault, '<EMAIL_1>').to).toBe('<EMAIL_1>');
  });

  it('control: a placeholder a transformer copies to another field is the release’s own, and restores', async () => {
    const vault = new PlaceholderVault();
    const preview: ContextTransformer = {
      name: 'preview',
      transform: (released) => ({ body: released.body, preview: released.body }),
    };
    const result = await setup()
      .base({ body: 'write to ada@example.org', preview: 'hello' })
      .only(['body', 'preview'])
      .scan(['body'], { mode: 'tokenize', vault })
      .transform(preview)
      .to(local);

    expect(result.payload).toEqual({ body: 'write to <EMAIL_1>', preview: 'write to <EMAIL_1>' });
    expect(restoredFrom(vault, '<EMAIL_1>').to).toBe('ada@example.org');
  });

  it('control: a placeholder already given out keeps standing for its value when later text spells it', async () => {
    const vault = new PlaceholderVault();
    const release = tokenizing(vault);
    expect((await release({ note: 'write to ada@example.org' }, ['note'])).payload).toEqual({
      note: 'write to <EMAIL_1>',
    });
    await release({ subject: 'as agreed with <EMAIL_1>' }, ['subject']);

    const again = await release({ note: 'cc ada@example.org' }, ['note']);

    expect(again.payload).toEqual({ note: 'cc <EMAIL_1>' });
    expect(restoredFrom(vault, '<EMAIL_1>').to).toBe('ada@example.org');
  });
});
