import { fingerprintString } from './fingerprint.js';

/** How many identity texts keep their fingerprint: a process serves a bounded set of principals at a time. */
const KEPT = 1024;

/** The fingerprints of the identity texts seen last, oldest first. */
const kept = new Map<string, string>();

/**
 * {@link fingerprintString} of an identity text (an actor's key, a tenant), computed once for the identity texts
 * seen last: every call of a principal fingerprints the same actor and tenant, on every gate of its run.
 */
export function identityFingerprint(text: string): string {
  let hash = kept.get(text);
  if (hash === undefined) {
    hash = fingerprintString(text);
    if (kept.size >= KEPT) kept.delete(kept.keys().next().value!);
    kept.set(text, hash);
  }
  return hash;
}
