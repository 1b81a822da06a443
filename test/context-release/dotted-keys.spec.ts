import { describe, expect, it } from '@jest/globals';
import {
  ContextReleaser,
  DataClass,
  Destination,
  InMemoryEvidenceRecorder,
  InvalidReleaseRequestError,
  ReleasePolicy,
  Source,
  Trust,
  UnreachableRedactionError,
} from '@verdict/nestjs';

// docs/context-release.md §3: a key that contains a dot is written with the dot escaped (`profile.tax\.id`), as
// evidence writes it; `\\` is a backslash inside a key. Unescaped, every dot separates two keys.

const profile = Source.application('customer-profile');
const local = Destination.connection('ollama-local', 'local-machine');
const payload = { profile: { 'tax.id': 'TAX-SECRET-1', name: 'Ada' } };

function setup() {
  const recorder = new InMemoryEvidenceRecorder();
  const policy = ReleasePolicy.route(profile, local).allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] });
  const releaser = new ContextReleaser({ policies: [policy], recorder });
  const base = (value: Record<string, unknown>) =>
    releaser.release(value).source(profile).trust(Trust.Trusted).classify(DataClass.Pii);
  return { base, records: () => recorder.releases() };
}

describe('release paths: a key that contains a dot', () => {
  it('attack: redact() with the escaped path redacts the dotted key; its value is never released', async () => {
    const { base, records } = setup();
    const result = await base(payload).only(['profile']).redact(['profile.tax\\.id']).to(local);
    expect(result).toMatchObject({
      permitted: true,
      payload: { profile: { 'tax.id': '[REDACTED]', name: 'Ada' } },
    });
    expect(result.json).not.toContain('TAX-SECRET-1');
    expect(JSON.stringify(records())).not.toContain('TAX-SECRET-1');
  });

  it('attack: scan() with the escaped path scans the dotted key', async () => {
    const { base } = setup();
    const notes = { notes: { 'call.log': 'Call ada@example.org back', 'other.log': 'ada@example.org' } };
    const result = await base(notes).only(['notes.call\\.log']).scan(['notes.call\\.log']).to(local);
    expect(result.permitted).toBe(true);
    expect(Object.keys(result.payload)).toEqual(['notes']);
    expect(Object.keys(result.payload.notes as object)).toEqual(['call.log']);
    expect(result.json).not.toContain('ada@example.org');
  });

  it('attack: only() with the escaped path releases the dotted key alone; redact() spelled unescaped beside it is unreachable', async () => {
    const { base } = setup();
    const released = await base(payload).only(['profile.tax\\.id']).to(local);
    expect(released.payload).toEqual({ profile: { 'tax.id': 'TAX-SECRET-1' } });
    await expect(base(payload).only(['profile.tax\\.id']).redact(['profile.tax.id']).to(local)).rejects.toBeInstanceOf(
      UnreachableRedactionError,
    );
  });

  it('attack: a backslash that escapes neither a dot nor a backslash is refused, not read as a literal key', async () => {
    const { base, records } = setup();
    await expect(base(payload).only(['profile']).redact(['profile.tax\\id']).to(local)).rejects.toBeInstanceOf(
      InvalidReleaseRequestError,
    );
    expect(records()).toEqual([]);
  });

  it('utility: a backslash inside a key is written \\\\', async () => {
    const { base } = setup();
    const result = await base({ dir: { 'C:\\': 'secret', D: 'kept' } })
      .only(['dir'])
      .redact(['dir.C:\\\\'])
      .to(local);
    expect(result.payload).toEqual({ dir: { 'C:\\': '[REDACTED]', D: 'kept' } });
  });

  it('control: ordinary paths are unchanged; unescaped dots address nested keys', async () => {
    const { base } = setup();
    const nested = { profile: { tax: { id: 'TAX-SECRET-2' }, name: 'Ada' }, orders: [{ status: 'paid', id: 7 }] };
    const result = await base(nested).only(['profile', 'orders.*.status']).redact(['profile.tax.id']).to(local);
    expect(result.payload).toEqual({
      profile: { name: 'Ada', tax: { id: '[REDACTED]' } },
      orders: [{ status: 'paid' }],
    });
  });
});
