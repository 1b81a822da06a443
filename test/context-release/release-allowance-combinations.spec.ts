import { describe, expect, it } from '@jest/globals';
import {
  ContextReleaser,
  DataClass,
  Destination,
  InMemoryEvidenceRecorder,
  type PiiDetector,
  ReleasePolicy,
  Source,
  Trust,
} from '@verdict/nestjs';

// docs/context-release.md §1: "Nothing is implied: … allowing `Trusted` does not allow `Untrusted`." Each
// `allow()` grants the (class, trust) combinations it names; two calls never combine into the cross product.

const profile = Source.application('customer-profile');
const local = Destination.connection('ollama-local', 'local-machine');

/** Finds `EMAIL<n>` as PII; the test does not depend on the built-in patterns. */
const emailWord: PiiDetector = {
  name: 'email-word',
  label: 'EMAIL',
  dataClass: DataClass.Pii,
  detect: (text) =>
    [...text.matchAll(/EMAIL\d+/g)].map((m) => ({
      detector: 'email-word',
      label: 'EMAIL',
      dataClass: DataClass.Pii,
      start: m.index,
      end: m.index + m[0].length,
    })),
};

/** Trusted PII, and untrusted internal data: two calls, two combinations. */
const twoAllows = () =>
  ReleasePolicy.route(profile, local)
    .allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] })
    .allow({ classes: [DataClass.Internal], trust: [Trust.Untrusted] });

function release(policy: ReleasePolicy, trust: Trust, dataClass: DataClass, payload = { note: 'order A-1' }) {
  const recorder = new InMemoryEvidenceRecorder();
  const releaser = new ContextReleaser({ policies: [policy], recorder, detectors: [emailWord] });
  const released = releaser.release(payload).source(profile).trust(trust).classify(dataClass).only(['note']).to(local);
  return released.then((result) => ({ result, records: recorder.releases() }));
}

describe('ReleasePolicy.allow grants (class, trust) combinations', () => {
  describe('two allow() calls', () => {
    it.each([
      ['untrusted PII', Trust.Untrusted, DataClass.Pii],
      ['trusted internal data', Trust.Trusted, DataClass.Internal],
    ])('refuse %s, which neither call named', async (_, trust, dataClass) => {
      const { result, records } = await release(twoAllows(), trust, dataClass);

      expect(result).toMatchObject({ permitted: false, reason: 'class_not_allowed' });
      expect(result.payload).toEqual({});
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        disposition: 'deny',
        reason: 'class_not_allowed',
        trust,
        classification: dataClass,
      });
    });

    it.each([
      ['trusted PII', Trust.Trusted, DataClass.Pii],
      ['untrusted internal data', Trust.Untrusted, DataClass.Internal],
    ])('release %s, which one call named', async (_, trust, dataClass) => {
      const { result } = await release(twoAllows(), trust, dataClass);

      expect(result).toMatchObject({ permitted: true, reason: 'released', payload: { note: 'order A-1' } });
    });

    it('validate an untrusted release against the classes allowed for untrusted data only', async () => {
      // Post-scrub validation: PII found in untrusted internal data is not allowed, though trusted PII is.
      const attack = await release(twoAllows(), Trust.Untrusted, DataClass.Internal, { note: 'mail EMAIL7' });
      expect(attack.result).toMatchObject({ permitted: false, reason: 'detector_fired:EMAIL' });
      expect(attack.result.payload).toEqual({});

      const control = await release(twoAllows(), Trust.Trusted, DataClass.Pii, { note: 'mail EMAIL7' });
      expect(control.result).toMatchObject({ permitted: true, payload: { note: 'mail EMAIL7' } });
    });

    it('answer permits() per combination', () => {
      expect(twoAllows().permits(DataClass.Pii, Trust.Trusted)).toBe(true);
      expect(twoAllows().permits(DataClass.Internal, Trust.Untrusted)).toBe(true);
      expect(twoAllows().permits(DataClass.Pii, Trust.Untrusted)).toBe(false);
      expect(twoAllows().permits(DataClass.Internal, Trust.Trusted)).toBe(false);
    });

    it('still refuse a trust level no call named, with its own reason', async () => {
      const policy = ReleasePolicy.route(profile, local).allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] });
      const { result } = await release(policy, Trust.Untrusted, DataClass.Pii);
      expect(result).toMatchObject({ permitted: false, reason: 'trust_not_allowed' });
    });

    it('grant nothing when one names only classes and the other only trust levels', async () => {
      const policy = ReleasePolicy.route(profile, local)
        .allow({ classes: [DataClass.Pii], trust: [] })
        .allow({ classes: [], trust: [Trust.Trusted] });

      expect(policy.permitsNothing).toBe(true);
      const { result } = await release(policy, Trust.Trusted, DataClass.Pii);
      expect(result).toMatchObject({ permitted: false, reason: 'route_permits_nothing' });
    });

    it('are reported by group, not as a cross product', () => {
      expect(twoAllows().allowanceText).toBe('[pii; trusted | internal; untrusted]');
      const overlapping = twoAllows().allow({ classes: [DataClass.Internal], trust: [Trust.Trusted] });
      expect(overlapping.allowanceText).toBe('[pii,internal; trusted | internal; untrusted]');
      expect([...twoAllows().classes]).toEqual([DataClass.Pii, DataClass.Internal]);
      expect([...twoAllows().trust]).toEqual([Trust.Trusted, Trust.Untrusted]);
    });
  });

  describe('one allow() call', () => {
    const oneAllow = () =>
      ReleasePolicy.route(profile, local).allow({
        classes: [DataClass.Pii, DataClass.Internal],
        trust: [Trust.Trusted, Trust.Untrusted],
      });

    it.each([
      [Trust.Trusted, DataClass.Pii],
      [Trust.Trusted, DataClass.Internal],
      [Trust.Untrusted, DataClass.Pii],
      [Trust.Untrusted, DataClass.Internal],
    ])('grants every combination it declares: %s %s', async (trust, dataClass) => {
      const { result } = await release(oneAllow(), trust, dataClass);
      expect(result).toMatchObject({ permitted: true, reason: 'released' });
    });

    it('is reported as before', () => {
      expect(oneAllow().allowanceText).toBe('[pii,internal; trusted,untrusted]');
      expect(ReleasePolicy.route(profile, local).allowanceText).toBe('[none; none]');
    });
  });
});
