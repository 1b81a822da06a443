import type { ContextReleaser } from '../context-release/context-releaser.js';
import { DataClass } from '../context-release/data-class.js';
import { Destination } from '../context-release/destination.js';
import { InvalidReleaseRequestError } from '../context-release/invalid-release-request.error.js';
import { Trust } from '../context-release/trust.js';
import type { ApproverProvenance, ApproverSource, UntrustedContentReference } from './approver-provenance.js';
import type { ProvenanceContents } from './provenance-contents.js';
import { ProvenanceSource } from './provenance-source.js';
import { releaseSourceOf } from './release-source-of.js';

/** Where an approver reads untrusted content, and how the application classifies it for that route. */
export interface UntrustedContentRequest {
  /** The approver's destination (their approval UI's connection and trust zone): the route's destination. */
  readonly destination: Destination;
  /** The data class the text is released as. Default `DataClass.Internal`; the route must allow it. */
  readonly classification?: DataClass;
}

/** What became of one untrusted content item. */
export const UntrustedContentStatus = {
  /** Its route to the destination permitted it: `text` is the released text. */
  Released: 'released',
  /** Its route refused it (`reason`, release evidence written): no text. */
  Refused: 'refused',
  /** The module's content store does not hold the text: forgotten, pruned, or parked by a process with another store. */
  Unavailable: 'unavailable',
} as const;

export type UntrustedContentStatus = (typeof UntrustedContentStatus)[keyof typeof UntrustedContentStatus];

/** One untrusted item of the window, with the outcome of its release to the approver. */
export type UntrustedContentItem =
  | (UntrustedContentReference & {
      readonly status: typeof UntrustedContentStatus.Released;
      /** The released text, as the route let it leave (a detector that fires refuses the item; it never redacts). */
      readonly text: string;
      /** The id of the release record written for it. */
      readonly releaseRecordId: string;
    })
  | (UntrustedContentReference & {
      readonly status: typeof UntrustedContentStatus.Refused;
      /** The release's internal denial reason (`route_not_registered`, `detector_fired:IBAN`, …). */
      readonly reason: string;
      readonly releaseRecordId: string;
    })
  | (UntrustedContentReference & { readonly status: typeof UntrustedContentStatus.Unavailable });

/**
 * The untrusted content of a parked call's window, released to an approver's destination: one entry per
 * untrusted item the receipt (or review item) recorded, each released, refused or unavailable.
 */
export interface UntrustedContentRelease {
  /** `connection@trustZone` of the destination. */
  readonly destination: string;
  /**
   * Whether the window was observed. `false`: Verdict never saw its content (the window was not observed, or
   * the provenance stage did not analyse the proposal at all), so there is none to show.
   */
  readonly observed: boolean;
  readonly items: readonly UntrustedContentItem[];
  /**
   * Every item of an observed window was released (vacuously, when it had none); never for a window Verdict did
   * not observe or analyse: no items then means nothing was checked, not nothing to show.
   */
  readonly complete: boolean;
}

/** The destination of a request, checked before anything is looked up. @throws InvalidReleaseRequestError */
export function checkedDestination(request: UntrustedContentRequest | undefined, caller: string): Destination {
  if (!(request?.destination instanceof Destination))
    throw new InvalidReleaseRequestError(`${caller} needs { destination: Destination.connection(name, trustZone) }.`);
  return request.destination;
}

/**
 * Releases each untrusted item `provenance` recorded through its route to `request.destination`: the text only
 * from `contents` (the module's store of parked windows' texts), one release record per item that has one (correlated by
 * `correlationId`, a fingerprint), never raw text for a refused route.
 */
export async function releaseUntrustedContent(
  provenance: ApproverProvenance | null,
  request: UntrustedContentRequest,
  wiring: { readonly contents: ProvenanceContents; readonly releaser: ContextReleaser; readonly correlationId: string },
): Promise<UntrustedContentRelease> {
  const destination = checkedDestination(request, 'untrustedContent');
  const items: UntrustedContentItem[] = [];
  for (const reference of provenance?.untrustedContent ?? []) {
    const text = await wiring.contents.text(reference.fingerprint);
    const base = {
      fingerprint: reference.fingerprint,
      source: reference.source,
      ...(reference.passageOf === undefined ? {} : { passageOf: reference.passageOf }),
    };
    if (text === undefined) {
      items.push(Object.freeze({ ...base, status: UntrustedContentStatus.Unavailable }));
      continue;
    }
    const result = await wiring.releaser.releaseRequest({
      payload: { text },
      source: releaseSourceOf(sourceOf(reference.source)),
      trust: Trust.Untrusted,
      classification: request.classification ?? DataClass.Internal,
      destination,
      only: ['text'],
      correlationId: wiring.correlationId,
    });
    items.push(
      Object.freeze(
        result.permitted
          ? {
              ...base,
              status: UntrustedContentStatus.Released,
              text: String(result.payload.text),
              releaseRecordId: result.recordId,
            }
          : {
              ...base,
              status: UntrustedContentStatus.Refused,
              reason: result.reason,
              releaseRecordId: result.recordId,
            },
      ),
    );
  }
  return Object.freeze({
    destination: destination.toString(),
    observed: provenance?.observed ?? false,
    items: Object.freeze(items),
    complete: provenance?.observed === true && items.every((item) => item.status === UntrustedContentStatus.Released),
  });
}

function sourceOf(source: ApproverSource): ProvenanceSource {
  return ProvenanceSource.create(source.kind, source.name);
}
