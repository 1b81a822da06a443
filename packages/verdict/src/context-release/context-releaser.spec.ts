import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ContextReleaseDenied } from '../events/context-release-denied.event.js';
import { SensitiveDataRedacted } from '../events/sensitive-data-redacted.event.js';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { InMemoryEvidenceRecorder } from '../evidence/in-memory-evidence-recorder.js';
import type { ReleaseRecord } from '../evidence/release-record.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { ContextReleaseRefusedError } from './context-release-refused.error.js';
import { ContextReleaser } from './context-releaser.js';
import type { ContextTransformer } from './context-transformer.interface.js';
import { DataClass } from './data-class.js';
import { Destination } from './destination.js';
import { DEFAULT_DETECTORS, type PiiDetector, PlaceholderVault, paymentCardDetector } from './detectors/index.js';
import { InvalidReleaseIdentifierError } from './invalid-release-identifier.error.js';
import { InvalidReleaseRequestError } from './invalid-release-request.error.js';
import { ReleaseEvidenceWriteFailedError } from './release-evidence-write-failed.error.js';
import { ReleasePolicy } from './release-policy.js';
import { Source } from './source.js';
import { Trust } from './trust.js';
import { UnreachableRedactionError } from './unreachable-redaction.error.js';

const profile = Source.application('customer-profile');
const local = Destination.connection('ollama-local', 'local-machine');
const piiToLocal = ReleasePolicy.route(profile, local).allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] });

/** A detector that finds the word SECRET; tests do not depend on the built-in patterns. */
const secretDetector = (dataClass: DataClass = DataClass.Sensitive): PiiDetector => ({
  name: 'secret-word',
  label: 'SECRET',
  dataClass,
  detect: (text) =>
    [...text.matchAll(/SECRET\d+/g)].map((m) => ({
      detector: 'secret-word',
      label: 'SECRET',
      dataClass,
      start: m.index,
      end: m.index + m[0].length,
    })),
});

function setup(policies: ReleasePolicy[] = [piiToLocal], detectors: PiiDetector[] = [secretDetector()]) {
  const recorder = new InMemoryEvidenceRecorder();
  const events: Array<{ name: string; value: unknown }> = [];
  const releaser = new ContextReleaser({
    policies,
    recorder,
    detectors,
    clock: () => new Date('2030-01-02T03:04:05.678Z'),
    events: { emit: (name, value) => events.push({ name, value }) },
  });
  const base = (payload: unknown = customer()) =>
    releaser.release(payload).source(profile).trust(Trust.Trusted).classify(DataClass.Pii);
  return { releaser, recorder, events, base, record: (): ReleaseRecord => recorder.releases().at(-1)! };
}

const customer = () => ({
  first_name: 'Ada',
  locale: 'en-GB',
  email: 'ada@example.org',
  ssn: '078-05-1120',
  orders: [
    { number: 'A-1', status: 'shipped', notes: 'leave at door' },
    { number: 'A-2', status: 'pending', notes: 'gift' },
  ],
});

describe('ContextReleaser', () => {
  describe('a registered route', () => {
    it('releases only the allowlist, with redaction, and says so', async () => {
      const { base, record } = setup();
      const result = await base()
        .only(['first_name', 'locale', 'email', 'orders.*.number', 'orders.*.status'])
        .redact(['email'])
        .to(local);

      expect(result.permitted).toBe(true);
      expect(result.reason).toBe('released');
      expect(result.payload).toEqual({
        first_name: 'Ada',
        locale: 'en-GB',
        email: '[REDACTED]',
        orders: [
          { number: 'A-1', status: 'shipped' },
          { number: 'A-2', status: 'pending' },
        ],
      });
      expect(record()).toMatchObject({
        id: result.recordId,
        correlationId: result.correlationId,
        sourceKind: 'application',
        sourceName: 'customer-profile',
        destinationConnection: 'ollama-local',
        destinationTrustZone: 'local-machine',
        classification: 'pii',
        trust: 'trusted',
        disposition: 'permit',
        reason: 'released',
        requestedPathsFingerprint: fingerprint(['email', 'first_name', 'locale', 'orders.*.number', 'orders.*.status']),
        // Shapes: which fields left (array positions as `*`); the payload fingerprint covers the values.
        releasedPathsFingerprint: fingerprint(['email', 'first_name', 'locale', 'orders.*.number', 'orders.*.status']),
        transformedPathsFingerprint: fingerprint(['email']),
        transformNamesFingerprint: fingerprint(['redact']),
        transformationCount: 1,
        payloadFingerprint: fingerprint(result.payload),
        recordedAt: new Date('2030-01-02T03:04:05.678Z'),
      });
    });

    it('uses a replacement of the caller’s choice', async () => {
      const { base } = setup();
      const result = await base().only(['email']).redact(['email'], { replacement: '<hidden>' }).to(local);
      expect(result.payload).toEqual({ email: '<hidden>' });
    });

    it('keeps the caller’s correlation id', async () => {
      const { base, record } = setup();
      const result = await base().only(['locale']).correlate('run-42').to(local);
      expect(result.correlationId).toBe('run-42');
      expect(record().correlationId).toBe('run-42');
    });
  });

  describe('denials', () => {
    it('denies an unregistered route with an empty payload and records it', async () => {
      const { base, record, events } = setup();
      const result = await base().only(['first_name']).to(Destination.connection('openai', 'vendor-cloud'));
      expect(result).toMatchObject({ permitted: false, payload: {}, reason: 'route_not_registered', vault: null });
      expect(record()).toMatchObject({
        disposition: 'deny',
        reason: 'route_not_registered',
        payloadFingerprint: fingerprint({}),
        releasedPathsFingerprint: fingerprint([]),
      });
      expect(events).toEqual([{ name: ContextReleaseDenied.event, value: expect.any(ContextReleaseDenied) }]);
      expect(events[0].value).toMatchObject({
        recordId: result.recordId,
        source: 'application:customer-profile',
        destination: 'openai@vendor-cloud',
        reason: 'route_not_registered',
      });
    });

    it('treats the same connection in another trust zone as another, unregistered route', async () => {
      const { base } = setup();
      const result = await base().only(['first_name']).to(Destination.connection('ollama-local', 'partner-cloud'));
      expect(result.reason).toBe('route_not_registered');
    });

    it('treats the same name from another source kind as another route', async () => {
      const { releaser } = setup();
      const result = await releaser
        .release(customer())
        .source(Source.external('customer-profile'))
        .trust(Trust.Trusted)
        .classify(DataClass.Pii)
        .only(['first_name'])
        .to(local);
      expect(result.reason).toBe('route_not_registered');
    });

    it.each([
      ['nothing allowed', ReleasePolicy.route(profile, local)],
      ['no trust level allowed', ReleasePolicy.route(profile, local).allow({ classes: [DataClass.Pii], trust: [] })],
      ['no class allowed', ReleasePolicy.route(profile, local).allow({ classes: [], trust: [Trust.Trusted] })],
    ])('tells a registered route that permits nothing (%s) apart from an unregistered one', async (_, policy) => {
      const { base, record } = setup([policy]);
      const result = await base().only(['first_name']).to(local);
      expect(result).toMatchObject({ permitted: false, payload: {}, reason: 'route_permits_nothing' });
      expect(record().reason).toBe('route_permits_nothing');
    });

    it('never widens trust or class: each must be allowed explicitly', async () => {
      const { releaser, base } = setup([
        ReleasePolicy.route(profile, local).allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] }),
      ]);
      const untrusted = await releaser
        .release(customer())
        .source(profile)
        .trust(Trust.Untrusted)
        .classify(DataClass.Pii)
        .only(['first_name'])
        .to(local);
      expect(untrusted).toMatchObject({ permitted: false, payload: {}, reason: 'trust_not_allowed' });
      // Allowing PII does not allow the "less sensitive" classes, nor the more sensitive one.
      for (const classification of [DataClass.Public, DataClass.Internal, DataClass.Sensitive]) {
        const result = await releaser
          .release(customer())
          .source(profile)
          .trust(Trust.Trusted)
          .classify(classification)
          .only(['first_name'])
          .to(local);
        expect(result).toMatchObject({ permitted: false, payload: {}, reason: 'class_not_allowed' });
      }
      expect((await base().only(['first_name']).to(local)).permitted).toBe(true);
    });
  });

  describe('custom transformers', () => {
    const collapse: ContextTransformer = {
      name: 'order-count',
      transform: (payload) => ({ ...payload, orders: (payload.orders as unknown[]).length }),
    };
    const expand: ContextTransformer = {
      name: 'add-email',
      transform: (payload) => ({ ...payload, email: 'ada@example.org' }),
    };
    const deepen: ContextTransformer = {
      name: 'split-name',
      transform: (payload) => ({ ...payload, first_name: { given: payload.first_name } }),
    };

    it('lets a transformer change or collapse released values, and records what it changed', async () => {
      const { base, record } = setup();
      const result = await base().only(['first_name', 'orders.*.status']).transform(collapse).to(local);
      expect(result.payload).toEqual({ first_name: 'Ada', orders: 2 });
      expect(record()).toMatchObject({
        transformNamesFingerprint: fingerprint(['order-count']),
        transformedPathsFingerprint: fingerprint(['orders', 'orders.*.status']),
        transformationCount: 3,
        releasedPathsFingerprint: fingerprint(['first_name', 'orders']),
      });
    });

    it.each([
      ['adds a key', expand],
      ['turns a value into an object', deepen],
    ])('refuses a transformer that %s: nothing is released', async (_, transformer) => {
      const { base, record } = setup();
      const result = await base().only(['first_name', 'orders.*.status']).transform(transformer).to(local);
      expect(result).toMatchObject({ permitted: false, payload: {}, reason: `transform_expanded:${transformer.name}` });
      expect(record().reason).toBe(`transform_expanded:${transformer.name}`);
    });

    it('gives the transformer a copy, so mutating its input changes nothing it did not return', async () => {
      const { base } = setup();
      const mutating: ContextTransformer = {
        name: 'mutating',
        transform: (payload) => {
          payload.smuggled = 'x';
          return { first_name: 'A.' };
        },
      };
      const result = await base().only(['first_name']).transform(mutating).to(local);
      expect(result.payload).toEqual({ first_name: 'A.' });
    });

    it("returns a transformer's payload with its keys in RFC 8785 order, as json", async () => {
      const { base } = setup();
      const reordering: ContextTransformer = {
        name: 'reordering',
        transform: () => ({ locale: 'x', first_name: 'y' }),
      };
      const result = await base().only(['first_name', 'locale']).transform(reordering).to(local);
      expect(Object.keys(result.payload)).toEqual(['first_name', 'locale']);
      expect(result.json).toBe('{"first_name":"y","locale":"x"}');
    });

    it('lets a transformer fault propagate; nothing is released or recorded', async () => {
      const { base, recorder } = setup();
      const failing: ContextTransformer = {
        name: 'failing',
        transform: () => {
          throw new Error('bug');
        },
      };
      await expect(base().only(['first_name']).transform(failing).to(local)).rejects.toThrow('bug');
      expect(recorder.releases()).toHaveLength(0);
    });
  });

  describe('free-text scanning and post-scrub validation', () => {
    const noteWithSecret = () => ({ ...customer(), orders: [{ number: 'A-1', notes: 'code SECRET123 at door' }] });

    it('redacts detections in the marked fields and announces it', async () => {
      const { base, record, events } = setup();
      const result = await base(noteWithSecret())
        .only(['orders.*.notes', 'email'])
        .redact(['email'])
        .scan(['orders.*.notes'])
        .to(local);
      expect(result.payload).toEqual({ orders: [{ notes: 'code [REDACTED] at door' }], email: '[REDACTED]' });
      expect(record()).toMatchObject({
        transformNamesFingerprint: fingerprint(['redact', 'scan:redact']),
        transformationCount: 2,
      });
      const redacted = events.find((event) => event.name === SensitiveDataRedacted.event)?.value;
      expect(redacted).toMatchObject({
        recordId: result.recordId,
        redactedFields: 1,
        scannedFields: 1,
        detectorLabels: ['SECRET'],
      });
    });

    it('tokenizes detections with a vault the caller can restore from', async () => {
      const { base } = setup();
      const vault = new PlaceholderVault();
      const result = await base(noteWithSecret())
        .only(['orders.*.notes'])
        .scan(['orders.*.notes'], { mode: 'tokenize', vault })
        .to(local);
      expect(result.payload).toEqual({ orders: [{ notes: 'code <SECRET_1> at door' }] });
      expect(result.vault).toBe(vault);
      expect(vault.restore(result.payload)).toEqual({ orders: [{ notes: 'code SECRET123 at door' }] });
    });

    it('attack: a redacted map keyed by data (e-mail addresses) is redacted whole, keys and all', async () => {
      const { base } = setup([piiToLocal], [...DEFAULT_DETECTORS]);
      const contacts = { 'ada@example.org': 'primary', 'bob@example.org': { since: 2020 } };
      const result = await base({ contacts }).only(['contacts']).redact(['contacts']).to(local);
      expect(result).toMatchObject({ permitted: true, payload: { contacts: '[REDACTED]' } });
      expect(result.json).not.toContain('example.org');
      // Every value of the map redacted, the same.
      const values = await base({ contacts }).only(['contacts']).redact(['contacts.*']).to(local);
      expect(values.payload).toEqual({ contacts: '[REDACTED]' });
    });

    it('control: a redacted object whose keys are no data keeps them, each value redacted', async () => {
      const { base } = setup([piiToLocal], [...DEFAULT_DETECTORS]);
      const address = { city: 'London', street: '1 Main St' };
      const result = await base({ address }).only(['address']).redact(['address']).to(local);
      expect(result.payload).toEqual({ address: { city: '[REDACTED]', street: '[REDACTED]' } });
    });

    describe('a tokenizing release that is refused or fails leaves nothing in the vault to restore', () => {
      const payload = () => ({ note: 'code SECRET123', other: 'SECRET456' });
      const tokenizing = (vault: PlaceholderVault) => (release: ReturnType<ReturnType<typeof setup>['base']>) =>
        release.scan(['note'], { mode: 'tokenize', vault });
      /** What a model writing the placeholder it guessed gets back from the vault. */
      const restored = (vault: PlaceholderVault) => ({
        size: vault.size,
        listed: vault.placeholdersIn('to <SECRET_1>'),
        to: vault.restore({ to: '<SECRET_1>' }).to,
      });
      const nothing = { size: 0, listed: [], to: '<SECRET_1>' };

      it('attack: denied by post-scrub validation (another field still holds a value the route does not release)', async () => {
        const { base } = setup();
        const vault = new PlaceholderVault();
        const result = await tokenizing(vault)(base(payload()).only(['note', 'other'])).to(local);
        expect(result).toMatchObject({ permitted: false, reason: 'detector_fired:SECRET', vault: null });
        expect(restored(vault)).toEqual(nothing);
      });

      it('attack: its record could not be written', async () => {
        const recorder = Object.assign(new InMemoryEvidenceRecorder(), {
          recordRelease: () => Promise.reject(new Error('evidence database down')),
        });
        const releaser = new ContextReleaser({ policies: [piiToLocal], recorder, detectors: [secretDetector()] });
        const vault = new PlaceholderVault();
        const release = releaser.release(payload()).source(profile).trust(Trust.Trusted).classify(DataClass.Pii);
        await expect(tokenizing(vault)(release.only(['note'])).to(local)).rejects.toThrow(
          ReleaseEvidenceWriteFailedError,
        );
        expect(restored(vault)).toEqual(nothing);
      });

      it('attack: a transformer after the scan threw', async () => {
        const { base } = setup();
        const vault = new PlaceholderVault();
        const failing: ContextTransformer = { name: 'failing', transform: () => Promise.reject(new Error('bug')) };
        await expect(
          tokenizing(vault)(base(payload()).only(['note']))
            .transform(failing)
            .to(local),
        ).rejects.toThrow('bug');
        expect(restored(vault)).toEqual(nothing);
      });

      it('attack: a transformer dropped the tokenized field: the release is permitted, its value never left', async () => {
        const { base } = setup();
        const vault = new PlaceholderVault();
        const dropNote: ContextTransformer = {
          name: 'drop-note',
          transform: (released) => ({ other: released.other }),
        };
        const release = tokenizing(vault)(base({ note: 'code SECRET123', other: 'hello' }).only(['note', 'other']));
        const result = await release.transform(dropNote).to(local);
        expect(result).toMatchObject({ permitted: true, payload: { other: 'hello' } });
        expect(restored(vault)).toEqual(nothing);
      });

      it('attack: input that spells a held placeholder is literal text, and restores to nothing later released', async () => {
        const { base } = setup();
        const vault = new PlaceholderVault();
        await tokenizing(vault)(base(payload()).only(['note', 'other'])).to(local); // refused: <SECRET_1> held
        const typed = { note: 'write to <SECRET_1> literally, code SECRET9' };
        const result = await tokenizing(vault)(base(typed).only(['note'])).to(local);
        expect(result.payload).toEqual({ note: 'write to <SECRET_1> literally, code <SECRET_2>' });
        // The held value released now takes a placeholder of its own: the typed text never restores to it.
        const later = await tokenizing(vault)(base({ note: 'code SECRET123' }).only(['note'])).to(local);
        expect(later.payload).toEqual({ note: 'code <SECRET_3>' });
        expect(vault.restore(result.payload)).toEqual({ note: 'write to <SECRET_1> literally, code SECRET9' });
      });

      it("control: a vault of the application's own (a wrapper with tokenize and restore) tokenizes as it always did", async () => {
        const { base } = setup();
        const inner = new PlaceholderVault();
        const wrapper = {
          tokenize: (text: string, spans: Parameters<PlaceholderVault['tokenize']>[1]) => inner.tokenize(text, spans),
          restore: <T>(value: T) => inner.restore(value),
        } as unknown as PlaceholderVault;
        const result = await tokenizing(wrapper)(base({ note: 'code SECRET123' }).only(['note'])).to(local);
        expect(result).toMatchObject({ permitted: true, payload: { note: 'code <SECRET_1>' } });
        expect(restored(inner)).toEqual({ size: 1, listed: ['<SECRET_1>'], to: 'SECRET123' });
      });

      it('control: the same value released later is given the held placeholder and restores from then on', async () => {
        const { base } = setup();
        const vault = new PlaceholderVault();
        await tokenizing(vault)(base(payload()).only(['note', 'other'])).to(local);
        const result = await tokenizing(vault)(base(payload()).only(['note'])).to(local);
        expect(result).toMatchObject({ permitted: true, payload: { note: 'code <SECRET_1>' } });
        expect(restored(vault)).toEqual({ size: 1, listed: ['<SECRET_1>'], to: 'SECRET123' });
      });
    });

    it('creates a vault for tokenization when none is given', async () => {
      const { base } = setup();
      const result = await base(noteWithSecret())
        .only(['orders.*.notes'])
        .scan(['orders.*.notes'], { mode: 'tokenize' })
        .to(local);
      expect(result.vault?.restore(result.payload)).toEqual({ orders: [{ notes: 'code SECRET123 at door' }] });
    });

    it('refuses the release when a detector still fires, in a value or a key, with a class the route does not allow', async () => {
      const { base, record, events } = setup();
      const unscanned = await base(noteWithSecret()).only(['orders.*.notes']).to(local);
      expect(unscanned).toMatchObject({ permitted: false, payload: {}, reason: 'detector_fired:SECRET' });
      expect(record().reason).toBe('detector_fired:SECRET');
      expect(events.map((event) => event.name)).toEqual([ContextReleaseDenied.event]);

      const inKey = await base({ tags: { SECRET99: true } })
        .only(['tags'])
        .to(local);
      expect(inKey.reason).toBe('detector_fired:SECRET');
    });

    it('checks an integer as its digits: a card number stored as a JSON number is refused, as its text is; other numbers pass (control)', async () => {
      const { base } = setup([piiToLocal], [paymentCardDetector]);
      for (const card of [4111111111111111, '4111111111111111'])
        expect((await base({ card }).only(['card']).to(local)).reason).toBe('detector_fired:CARD');
      const figures = { total: 1764800000000, quantity: 4, price: 12.5, id: 4111111111111112 };
      expect((await base(figures).only(['total', 'quantity', 'price', 'id']).to(local)).permitted).toBe(true);
    });

    it('refuses what a transformer reintroduces', async () => {
      const { base } = setup();
      const leaky: ContextTransformer = { name: 'leaky', transform: () => ({ first_name: 'SECRET1-ish' }) };
      expect((await base().only(['first_name']).transform(leaky).to(local)).reason).toBe('detector_fired:SECRET');
    });

    it('lets a detection through when the route allows its class', async () => {
      const { base } = setup([piiToLocal], [secretDetector(DataClass.Pii)]);
      const result = await base(noteWithSecret()).only(['orders.*.notes']).to(local);
      expect(result.permitted).toBe(true);
    });

    it('uses the route’s own detectors over the releaser’s', async () => {
      const { base } = setup([piiToLocal.detectWith([])]);
      const result = await base(noteWithSecret()).only(['orders.*.notes']).to(local);
      expect(result.permitted).toBe(true);
    });

    it('uses the built-in detectors by default', async () => {
      const releaser = new ContextReleaser({ policies: [piiToLocal], recorder: new InMemoryEvidenceRecorder() });
      const internal = ReleasePolicy.route(profile, Destination.connection('ollama-local', 'lab')).allow({
        classes: [DataClass.Internal],
        trust: [Trust.Trusted],
      });
      const strict = new ContextReleaser({ policies: [internal], recorder: new InMemoryEvidenceRecorder() });
      const note = { note: 'reach me at ada@example.org' };
      const scanned = await releaser
        .release(note)
        .source(profile)
        .trust(Trust.Trusted)
        .classify(DataClass.Pii)
        .only(['note'])
        .scan(['note'])
        .to(local);
      expect(scanned.payload).toEqual({ note: 'reach me at [REDACTED]' });
      const refused = await strict
        .release(note)
        .source(profile)
        .trust(Trust.Trusted)
        .classify(DataClass.Internal)
        .only(['note'])
        .to(Destination.connection('ollama-local', 'lab'));
      expect(refused.permitted).toBe(false);
      expect(refused.reason).toMatch(/^detector_fired:/);
    });
  });

  describe('malformed releases', () => {
    it('requires source, trust, classification and destination', async () => {
      const { releaser } = setup();
      await expect(
        releaser.release(customer()).trust(Trust.Trusted).classify(DataClass.Pii).only(['a']).to(local),
      ).rejects.toThrow(InvalidReleaseRequestError);
      await expect(
        releaser.release(customer()).source(profile).classify(DataClass.Pii).only(['a']).to(local),
      ).rejects.toThrow(InvalidReleaseRequestError);
      await expect(
        releaser.release(customer()).source(profile).trust(Trust.Trusted).only(['a']).to(local),
      ).rejects.toThrow(InvalidReleaseRequestError);
      await expect(
        releaser
          .release(customer())
          .source(profile)
          .trust(Trust.Trusted)
          .classify(DataClass.Pii)
          .only(['a'])
          .to(undefined as unknown as Destination),
      ).rejects.toThrow(InvalidReleaseRequestError);
      await expect(
        releaser
          .release(customer())
          .source(profile)
          .trust('kind-of' as Trust)
          .classify(DataClass.Pii)
          .only(['a'])
          .to(local),
      ).rejects.toThrow(InvalidReleaseRequestError);
    });

    it('requires a non-empty allowlist and a plain-object payload', async () => {
      const { base, releaser } = setup();
      await expect(base().to(local)).rejects.toThrow(InvalidReleaseRequestError);
      await expect(base().only([]).to(local)).rejects.toThrow(InvalidReleaseRequestError);
      await expect(
        releaser.release('text').source(profile).trust(Trust.Trusted).classify(DataClass.Pii).only(['a']).to(local),
      ).rejects.toThrow(InvalidReleaseRequestError);
    });

    it('refuses a redaction or scan path the allowlist can never reach, before anything is recorded', async () => {
      const { base, recorder } = setup();
      await expect(base().only(['first_name', 'orders.*.status']).redact(['emial']).to(local)).rejects.toThrow(
        UnreachableRedactionError,
      );
      await expect(base().only(['orders.*.status']).scan(['orders.*.notes']).to(local)).rejects.toThrow(
        UnreachableRedactionError,
      );
      expect(recorder.releases()).toHaveLength(0);
    });

    it('refuses prototype keys in paths', async () => {
      const { base } = setup();
      await expect(base().only(['__proto__.polluted']).to(local)).rejects.toThrow(InvalidReleaseRequestError);
      await expect(base().only(['first_name']).redact(['constructor']).to(local)).rejects.toThrow(
        InvalidReleaseRequestError,
      );
    });

    it('releases a payload with prototype keys safely', async () => {
      const { base } = setup();
      const hostile = JSON.parse(
        '{"first_name": "Ada", "__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 1}}}',
      );
      const result = await base(hostile).only(['*']).to(local);
      expect(result.payload).toEqual({ first_name: 'Ada' });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it.each(['', 'has space', 'slash/ed', 'a'.repeat(129), 'ünï'])(
      'refuses the identifier %j with a typed error',
      (name) => {
        expect(() => Source.application(name)).toThrow(InvalidReleaseIdentifierError);
        expect(() => Destination.connection(name, 'zone')).toThrow(InvalidReleaseIdentifierError);
        expect(() => Destination.connection('conn', name)).toThrow(InvalidReleaseIdentifierError);
      },
    );

    it('refuses a transformer without an identifier name, and a correlation id that is not one', async () => {
      const { base } = setup();
      await expect(
        base()
          .only(['first_name'])
          .transform({ name: 'bad name', transform: (p) => p })
          .to(local),
      ).rejects.toThrow(InvalidReleaseIdentifierError);
      await expect(base().only(['first_name']).correlate('user@example.org').to(local)).rejects.toThrow(
        InvalidReleaseIdentifierError,
      );
    });

    it('refuses a second value for a setter rather than overriding it', () => {
      const { base } = setup();
      expect(() => base().trust(Trust.Untrusted)).toThrow(InvalidReleaseRequestError);
      expect(() => base().only(['a']).only(['b'])).toThrow(InvalidReleaseRequestError);
    });

    it('leaves a shared partial builder unchanged by later steps', async () => {
      const { base } = setup();
      const shared = base().only(['first_name']);
      await shared.redact(['first_name']).to(local);
      expect((await shared.to(local)).payload).toEqual({ first_name: 'Ada' });
    });
  });

  describe('a released value that is not plain JSON', () => {
    // A map keyed by e-mail addresses: its keys are data, and an application fault's error reaches logs.
    const email = 'ada.lovelace@example.org';
    const contacts = () => ({ first_name: 'Ada', contacts: { [email]: { since: new Date(0), note: 'met at RI' } } });

    /** The error a release rejects with, and all of it that a log prints. */
    async function failure(release: Promise<unknown>) {
      const error = await release.then(
        () => {
          throw new Error('released');
        },
        (rejection: unknown) => rejection,
      );
      expect(error).toBeInstanceOf(NonCanonicalValueError);
      const { message, path, problem, context, stack } = error as NonCanonicalValueError;
      return {
        error: error as NonCanonicalValueError,
        logged: JSON.stringify({ message, path, problem, context, stack }),
      };
    }

    it.each([
      ['an allowlist wildcard', ['contacts.*.since'], '$.contacts.*.since'],
      ['a released subtree', ['contacts'], '$.contacts.*.*'],
    ])('attack: reached by %s under a key that is data, its error names where without the key', async (_, only, at) => {
      const { base, recorder } = setup();
      const { error, logged } = await failure(base(contacts()).only(only).to(local));
      expect(logged).not.toContain('lovelace');
      expect(error.path).toBe(at);
      expect(recorder.releases()).toHaveLength(0);
    });

    it("attack: in a transformer's result under a key that is data, its error names where without the key", async () => {
      const { base, recorder } = setup();
      const byEmail: ContextTransformer = {
        name: 'by-email',
        transform: (payload) => ({ ...payload, [email]: Number.NaN }),
      };
      const { error, logged } = await failure(base().only(['first_name']).transform(byEmail).to(local));
      expect(logged).not.toContain('lovelace');
      expect(error.path).toBe('$.*');
      expect(recorder.releases()).toHaveLength(0);
    });

    it('control: the error says what is wrong and where, with the keys and positions the allowlist names', async () => {
      const { base } = setup();
      const orders = {
        orders: [
          { number: 'A-1', placed: '2030-01-01' },
          { number: 'A-2', placed: new Date(0) },
        ],
      };
      const { error } = await failure(base(orders).only(['orders.*.placed']).to(local));
      expect(error).toMatchObject({
        code: 'VERDICT_NON_CANONICAL_VALUE',
        path: '$.orders.1.placed',
        problem: 'Date instance is not a plain object',
      });
      expect(error.message).toMatch(/^\$\.orders\.1\.placed: Date instance is not a plain object\. /);
    });
  });

  describe('evidence', () => {
    it('stores no payload value, released or not', async () => {
      const { base, recorder } = setup();
      const marker = 'ZXQ-unique-7781';
      await base({
        ...customer(),
        first_name: `${marker}-released`,
        hidden: `${marker}-hidden`,
        email: `${marker}@example.org`,
      })
        .only(['first_name', 'email'])
        .redact(['email'])
        .to(local);
      await base({ secret: marker }).only(['secret']).to(Destination.connection('nowhere', 'void'));
      expect(recorder.releases()).toHaveLength(2);
      expect(JSON.stringify(recorder.releases())).not.toContain(marker);
    });

    it('fails closed when the record cannot be written: nothing is released', async () => {
      class Broken extends InMemoryEvidenceRecorder {
        override async recordRelease(): Promise<void> {
          throw new Error('disk full');
        }
      }
      const releaser = new ContextReleaser({ policies: [piiToLocal], recorder: new Broken(), detectors: [] });
      const attempt = releaser
        .release(customer())
        .source(profile)
        .trust(Trust.Trusted)
        .classify(DataClass.Pii)
        .only(['first_name'])
        .to(local);
      await expect(attempt).rejects.toThrow(ReleaseEvidenceWriteFailedError);
    });
  });

  describe('requireRelease', () => {
    const request = (destination: Destination) => ({
      payload: { result: 'order A-1 shipped' },
      source: Source.external('order-tool'),
      trust: Trust.Untrusted,
      classification: DataClass.Internal,
      destination,
      only: ['result'],
    });
    const toolRoute = ReleasePolicy.route(Source.external('order-tool'), local).allow({
      classes: [DataClass.Internal],
      trust: [Trust.Untrusted],
    });

    it('returns a permitted release: its payload and canonical text', async () => {
      const { releaser } = setup([toolRoute]);
      expect(await releaser.requireRelease(request(local))).toMatchObject({
        permitted: true,
        payload: { result: 'order A-1 shipped' },
        json: '{"result":"order A-1 shipped"}',
      });
    });

    it('throws ContextReleaseRefusedError for a denial, after recording it', async () => {
      const { releaser, recorder } = setup([toolRoute]);
      const error = await releaser
        .requireRelease(request(Destination.connection('openai', 'vendor-cloud')))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ContextReleaseRefusedError);
      expect(error).toMatchObject({ reason: 'route_not_registered', recordId: recorder.releases()[0].id });
    });
  });

  describe('the payload fingerprint', () => {
    it('is the RFC 8785 fingerprint of the released payload, whatever its key order or integer-like keys', async () => {
      const { base, record } = setup([piiToLocal], []);
      await fc.assert(
        fc.asyncProperty(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), async (payload) => {
          const result = await base(payload).only(['*']).to(local);
          expect(record().payloadFingerprint).toBe(fingerprint(result.payload));
        }),
        { numRuns: 300 },
      );
    });

    it('sorts keys as RFC 8785 does, and still fingerprints objects whose integer-like keys JavaScript reorders', async () => {
      const { base, record } = setup([piiToLocal], []);
      const result = await base({ b: 1, a: { '10': 'x', '9': 'y', $: 'z' } })
        .only(['*'])
        .to(local);
      expect(Object.keys(result.payload)).toEqual(['a', 'b']);
      expect(record().payloadFingerprint).toBe(fingerprint({ a: { $: 'z', '10': 'x', '9': 'y' }, b: 1 }));
    });
  });
});
