/**
 * What the model proposed: untrusted. The tool-call id is transport metadata, fingerprinted in evidence
 * and never the identity of an operation. `null` or a blank string is no id, as if absent; an id that is neither a
 * string nor a finite number is refused as malformed (`deny` at `proposal`).
 */
export interface Proposal {
  readonly capability: string;
  readonly arguments: unknown;
  readonly toolCallId?: string | number | null;
}
