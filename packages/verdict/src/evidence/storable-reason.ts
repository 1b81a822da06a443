/**
 * The longest reason a record keeps, in UTF-16 code units (JavaScript's `length`): a longer one is cut to this
 * length, its last character `…`. One code unit takes at most 3 bytes of UTF-8, so a kept reason takes at most
 * 12,288 bytes: it fits every engine's `reason` column, MySQL/MariaDB's 65,535-byte `text` included.
 */
export const MAX_REASON_LENGTH = 4096;

/** What no engine stores as it is: U+0000 (PostgreSQL's `text` refuses it) and lone surrogates (no hash takes one). */
const UNSTORABLE = /[\0\p{Cs}]/gu;

/** What a record keeps of a cut reason: the text before the cut, then this mark. */
const CUT = '…';

/**
 * A decision's or release's reason as every recorder stores and hashes it: U+0000 and lone surrogates replaced by
 * U+FFFD, and a reason longer than {@link MAX_REASON_LENGTH} cut to it, ending with `…`. A reason can hold text the
 * application took from the model (a resolver's `no order ${orderId}`): as it was, such a text could fail the only
 * evidence write of a refusal. Applied again, it changes nothing; an ordinary reason is kept exactly. A value that is
 * not a string (a caller's past the types) is left as it is, for the record's hash to judge (ADR 0075).
 */
export function storableReason(reason: string): string {
  if (typeof reason !== 'string') return reason;
  const replaced = storableCharacters(reason);
  if (replaced.length <= MAX_REASON_LENGTH) return replaced;
  let kept = replaced.slice(0, MAX_REASON_LENGTH - CUT.length);
  // The cut never leaves the first half of a surrogate pair behind (a lone surrogate, unstorable).
  if (/[\ud800-\udbff]$/.test(kept)) kept = kept.slice(0, -1);
  return kept + CUT;
}

/** `text` with U+0000 and lone surrogates replaced by U+FFFD: what every engine stores and every hash takes. */
function storableCharacters(text: string): string {
  return text.replace(UNSTORABLE, '\ufffd');
}

/**
 * A capability's `describe()` of a proposal parked for a human (a receipt's, a review item's `description`) as every
 * store keeps it: U+0000 and lone surrogates as U+FFFD, since it can interpolate what the model wrote
 * (`Send note: ${note}`); `null` when there is none. Never cut, unlike a reason: the human decides on what it says,
 * and a cut could hide its end (a long note pushing the recipient out of sight). Every store's column takes any length.
 */
export function storableDescription(description: string | null | undefined): string | null {
  if (description === undefined || description === null) return null;
  // Not a string (a caller's past the types): left as it is, as before, for the store to judge.
  return typeof description === 'string' ? storableCharacters(description) : description;
}
