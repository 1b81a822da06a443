import type { ContextReleaser } from '../context-release/context-releaser.js';
import type { Destination } from '../context-release/destination.js';
import type { ReleaseRequest } from '../context-release/release-request.js';
import { labelContent } from '../provenance/labelled-content.js';
import type { ProvenanceLabels } from '../provenance/provenance-labels.js';
import { ProvenanceSource } from '../provenance/provenance-source.js';

/** What releasing context for a model-input guard needs. */
export interface ContextReleaseWiring {
  readonly releaser: Pick<ContextReleaser, 'requireRelease'>;
  readonly destination: Destination;
  readonly provenanceLabels?: ProvenanceLabels;
}

/**
 * Releases structured context for the guard's destination (a model-input guard's `contextMessage`, every
 * runtime): the released JSON, whose label — the release request's source and trust — goes to the module's
 * provenance labels, so a tracker labels it as what it was released as, not as the user's message. The module's labels
 * remember it for the principal of the current action context (their principal resolver): a trusted release vouches in
 * that principal's windows only, one made outside any action context in every window (ADR 0041).
 */
export async function releaseContext(
  wiring: ContextReleaseWiring,
  request: Omit<ReleaseRequest, 'destination'>,
): Promise<string> {
  const { json } = await wiring.releaser.requireRelease({ ...request, destination: wiring.destination });
  wiring.provenanceLabels?.remember(json, [labelContent(json, ProvenanceSource.of(request.source), request.trust)]);
  return json;
}
