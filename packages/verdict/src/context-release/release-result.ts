import type { JsonObject } from '../fingerprints/json-value.js';
import type { PlaceholderVault } from './detectors/index.js';

/**
 * The outcome of a release. Pass only `payload` to the destination. On a denial `payload` is `{}` and
 * `reason` is the internal reason (keep it out of the model's context).
 */
export interface ReleaseResult {
  readonly permitted: boolean;
  readonly payload: JsonObject;
  /** `payload` as RFC 8785 canonical JSON text (what the payload fingerprint covers): send this rather than serializing again. */
  readonly json: string;
  /** `released`, or a denial reason such as `route_not_registered` or `detector_fired:EMAIL`. */
  readonly reason: string;
  /** The id of the release record written for this release. */
  readonly recordId: string;
  readonly correlationId: string;
  /** The vault that holds the placeholders of `scan(…, { mode: 'tokenize' })`; `null` otherwise or on a denial. */
  readonly vault: PlaceholderVault | null;
}
