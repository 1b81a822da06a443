import { describe, expect, it } from '@jest/globals';
import {
  ContextReleaser,
  DataClass,
  DEFAULT_DETECTORS,
  Destination,
  InMemoryEvidenceRecorder,
  ReleasePolicy,
  Source,
  Trust,
} from '@verdict/nestjs';

// docs/context-release.md §4: an IBAN is found wherever it starts, whatever precedes it. An upper-case token shaped
// like the start of an IBAN (`FY24`, a VAT id), one space before it, hid it from detection: post-scrub validation
// released it to a route that releases only PII, and `scan` left it in.

const profile = Source.application('customer-profile');
const local = Destination.connection('ollama-local', 'local-machine');

function setup() {
  const recorder = new InMemoryEvidenceRecorder();
  const policy = ReleasePolicy.route(profile, local).allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] });
  const releaser = new ContextReleaser({ policies: [policy], recorder, detectors: DEFAULT_DETECTORS });
  const base = (payload: Record<string, unknown>) =>
    releaser.release(payload).source(profile).trust(Trust.Trusted).classify(DataClass.Pii);
  return { base, records: () => recorder.releases() };
}

const hidden = [
  'VAT DE123456789 IBAN DE89 3704 0044 0532 0130 00',
  'DE123456789 DE89370400440532013000',
  'FY24 DE89 3704 0044 0532 0130 00',
  'AB12 CD34 DE89 3704 0044 0532 0130 00',
];

describe('an IBAN after an IBAN-shaped token', () => {
  it.each(hidden)('attack: post-scrub validation denies %s on a PII-only route', async (note) => {
    const { base, records } = setup();
    const result = await base({ note }).only(['note']).to(local);
    expect(result).toMatchObject({ permitted: false, reason: 'detector_fired:IBAN' });
    expect(records()[0]).toMatchObject({ disposition: 'deny', reason: 'detector_fired:IBAN' });
  });

  it.each(hidden)('attack: scan redacts the IBAN in %s', async (note) => {
    const { base } = setup();
    const result = await base({ note }).only(['note']).scan(['note']).to(local);
    expect(result.permitted).toBe(true);
    expect(result.json).not.toMatch(/3704|0130/);
    expect(result.payload).toEqual({ note: note.replace(/DE89(?: ?[0-9]{4}){4} ?00$/, '[REDACTED]') });
  });

  it('control: text with IBAN-shaped tokens and no IBAN is released unchanged', async () => {
    const { base } = setup();
    const note = 'FY24 Q3 report, VAT DE123456789, ref AB12 CD34';
    const result = await base({ note }).only(['note']).scan(['note']).to(local);
    expect(result).toMatchObject({ permitted: true, payload: { note } });
  });

  it('attack: two IBANs joined by one space are both redacted whole', async () => {
    const { base } = setup();
    const note = 'DE89 3704 0044 0532 0130 00 GB82 WEST 1234 5698 7654 32 EUR';
    const result = await base({ note }).only(['note']).scan(['note']).to(local);
    expect(result).toMatchObject({ permitted: true, payload: { note: '[REDACTED] [REDACTED] EUR' } });
  });
});
