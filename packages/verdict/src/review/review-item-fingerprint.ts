import { fingerprintString } from '../fingerprints/fingerprint.js';

/**
 * `sha256(item id)` (hex): how evidence (`receiptFingerprint`) and the `ReviewedOperation…` events name a review
 * item, never by its id. An application holding an id (its review endpoint answered it) compares with this.
 *
 * @example reviewItemFingerprint(transition.itemId) === event.itemFingerprint
 */
export function reviewItemFingerprint(itemId: string): string {
  return fingerprintString(itemId);
}
