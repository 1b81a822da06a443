import { describe, expect, it } from '@jest/globals';
import {
  ContextReleaser,
  DataClass,
  DEFAULT_DETECTORS,
  type DetectedSpan,
  Destination,
  InMemoryEvidenceRecorder,
  InvalidReleaseRequestError,
  type PiiDetector,
  ReleasePolicy,
  type ReleaseRequest,
  Source,
  Trust,
} from '@verdict/nestjs';

// docs/context-release.md §4: post-scrub validation runs every detector over every string of the final payload, and a
// detection of a class the route does not release denies it — on fields that were not marked for scanning too. A
// detector an application writes may declare one class and report spans of another (one pattern set, several
// classes): what counts is each span's class, never only the class the detector declares.

const crm = Source.application('crm');
const local = Destination.connection('ollama-local', 'local-machine');

/** Declared `internal`; reports ticket ids as `internal`, and US social security numbers (`SSN…`) as `pii`. */
const mixed: PiiDetector = {
  name: 'crm-ids',
  label: 'CRM_ID',
  dataClass: DataClass.Internal,
  detect(text: string): readonly DetectedSpan[] {
    return [...text.matchAll(/\b(TCK|SSN)\d+\b/g)].map((match) => ({
      detector: 'crm-ids',
      label: match[1] === 'SSN' ? 'SSN_ID' : 'CRM_ID',
      dataClass: match[1] === 'SSN' ? DataClass.Pii : DataClass.Internal,
      start: match.index,
      end: match.index + match[0].length,
    }));
  },
};

function release(classes: readonly DataClass[], payload: Record<string, unknown>) {
  const recorder = new InMemoryEvidenceRecorder();
  const policy = ReleasePolicy.route(crm, local).allow({ classes: [...classes], trust: [Trust.Trusted] });
  const releaser = new ContextReleaser({ policies: [policy], recorder, detectors: [...DEFAULT_DETECTORS, mixed] });
  const result = releaser
    .release(payload)
    .source(crm)
    .trust(Trust.Trusted)
    .classify(DataClass.Internal)
    .only(Object.keys(payload))
    .to(local);
  return { result, records: () => recorder.releases() };
}

describe('post-scrub validation reads the class of each span a detector reports', () => {
  it('attack: a pii span of a detector declared internal denies a route that releases only internal data', async () => {
    const { result, records } = release([DataClass.Internal], { note: 'customer SSN123 called' });
    expect(await result).toMatchObject({ permitted: false, reason: 'detector_fired:SSN_ID' });
    expect(records()[0]).toMatchObject({ disposition: 'deny', reason: 'detector_fired:SSN_ID' });
  });

  it('control: the same detector’s internal spans leave on that route', async () => {
    const { result } = release([DataClass.Internal], { note: 'ticket TCK42 closed' });
    expect(await result).toMatchObject({ permitted: true, payload: { note: 'ticket TCK42 closed' } });
  });

  it('control: a route that releases pii too lets the pii span and a built-in pii detection leave', async () => {
    const { result } = release([DataClass.Internal, DataClass.Pii], { note: 'SSN123 wrote from ada@example.org' });
    expect(await result).toMatchObject({ permitted: true, payload: { note: 'SSN123 wrote from ada@example.org' } });
  });
});

describe('a release request whose scan is not an object', () => {
  const base: ReleaseRequest = {
    payload: { note: 'hello' },
    source: crm,
    trust: Trust.Trusted,
    classification: DataClass.Internal,
    destination: local,
    only: ['note'],
  };
  const releaser = () =>
    new ContextReleaser({
      policies: [ReleasePolicy.route(crm, local).allow({ classes: [DataClass.Internal], trust: [Trust.Trusted] })],
      recorder: new InMemoryEvidenceRecorder(),
    });

  it('attack: scan null is an InvalidReleaseRequestError, not a TypeError', async () => {
    const request = { ...base, scan: null } as unknown as ReleaseRequest;
    await expect(releaser().releaseRequest(request)).rejects.toThrow(InvalidReleaseRequestError);
  });

  it('control: scan left out, or given as { paths }, releases', async () => {
    await expect(releaser().releaseRequest(base)).resolves.toMatchObject({ permitted: true });
    await expect(releaser().releaseRequest({ ...base, scan: { paths: ['note'] } })).resolves.toMatchObject({
      permitted: true,
    });
  });
});
