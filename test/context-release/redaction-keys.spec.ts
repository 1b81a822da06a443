import { describe, expect, it } from '@jest/globals';
import {
  ContextReleaser,
  DataClass,
  Destination,
  InMemoryEvidenceRecorder,
  ReleasePolicy,
  Source,
  Trust,
} from '@verdict/nestjs';

// docs/context-release.md §3: redaction replaces values, never keys. A key that is data — the key of a redacted value,
// or one a redaction path's `*` matches above the redacted leaf — never leaves in clear, as under `scan` (ADR 0155).

const profile = Source.application('customer-profile');
const local = Destination.connection('ollama-local', 'local-machine');

/** A route that releases trusted PII: post-scrub validation lets an e-mail address through, redaction must not. */
function setup() {
  const recorder = new InMemoryEvidenceRecorder();
  const policy = ReleasePolicy.route(profile, local).allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] });
  const releaser = new ContextReleaser({ policies: [policy], recorder });
  const base = (payload: Record<string, unknown>) =>
    releaser.release(payload).source(profile).trust(Trust.Trusted).classify(DataClass.Pii);
  return { base, records: () => recorder.releases() };
}

describe('redact: a key a redaction path’s wildcard matches is data', () => {
  it.each([['contacts'], ['contacts.*.phone']])(
    'attack: a map keyed by e-mail addresses above a redacted leaf (contacts.*.phone) does not leave its keys (only %s)',
    async (only) => {
      const { base } = setup();
      const payload = { contacts: { 'ada@example.org': { phone: '020 7946 0958', since: 2020 } } };
      const result = await base(payload).only([only]).redact(['contacts.*.phone']).to(local);
      expect(result).toMatchObject({ permitted: true, payload: { contacts: '[REDACTED]' } });
      expect(result.json).not.toContain('example.org');
      expect(result.json).not.toContain('7946');
    },
  );

  it('attack: deeper down, only the object whose keys the wildcard matches is redacted whole', async () => {
    const { base } = setup();
    const payload = {
      teams: [{ name: 'Sales', members: { 'ada@example.org': { phone: '020 7946 0958' } } }],
    };
    const result = await base(payload).only(['teams']).redact(['teams.*.members.*.phone']).to(local);
    expect(result.payload).toEqual({ teams: [{ members: '[REDACTED]', name: 'Sales' }] });
    expect(result.json).not.toContain('example.org');
  });

  it.each([['*.phone'], ['*']])(
    'attack: such a key at the payload’s top level (which is kept) refuses the release (redact %s)',
    async (redacted) => {
      const { base, records } = setup();
      const payload = { 'ada@example.org': { phone: '020 7946 0958' } };
      const result = await base(payload).only(['*']).redact([redacted]).to(local);
      expect(result).toMatchObject({ permitted: false, payload: {}, reason: 'detector_fired:EMAIL' });
      expect(records()[0]).toMatchObject({ disposition: 'deny', reason: 'detector_fired:EMAIL' });
    },
  );

  it('control: keys the wildcard matches that are ordinary words are kept, each redacted leaf replaced', async () => {
    const { base } = setup();
    const payload = { contacts: { work: { phone: '020 7946 0958', since: 2020 }, home: { since: 2021 } } };
    const result = await base(payload).only(['contacts']).redact(['contacts.*.phone']).to(local);
    expect(result.payload).toEqual({ contacts: { home: { since: 2021 }, work: { phone: '[REDACTED]', since: 2020 } } });
  });

  it('control: ordinary top-level keys under a wildcard redaction are released, each redacted leaf replaced', async () => {
    const { base, records } = setup();
    const payload = { work: { phone: '020 7946 0958', city: 'London' } };
    const result = await base(payload).only(['*']).redact(['*.phone']).to(local);
    expect(result).toMatchObject({ permitted: true, payload: { work: { city: 'London', phone: '[REDACTED]' } } });
    expect(records()[0]).toMatchObject({ disposition: 'permit', transformationCount: 1 });
  });

  it('control: an unredacted map keyed by e-mail addresses is released as it is (the route releases PII)', async () => {
    const { base } = setup();
    const payload = { contacts: { 'ada@example.org': { phone: '020 7946 0958' } }, note: 'call back' };
    const result = await base(payload).only(['contacts', 'note']).redact(['note']).to(local);
    expect(result.payload).toEqual({ contacts: { 'ada@example.org': { phone: '020 7946 0958' } }, note: '[REDACTED]' });
  });
});
