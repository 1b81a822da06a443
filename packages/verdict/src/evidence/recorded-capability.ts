import { fingerprintString } from '../fingerprints/fingerprint.js';

/**
 * The capability name evidence records for a call: the name when the application declared it, otherwise a
 * fingerprint under `unknown:` — a name the model made up is model-written text, and evidence keeps none.
 */
export function recordedCapability(name: string, declared: boolean): string {
  return declared ? name : `unknown:${fingerprintString(name)}`;
}
