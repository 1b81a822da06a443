/**
 * What the model proposed: untrusted. The tool-call id is transport metadata, fingerprinted in evidence
 * and never the identity of an operation.
 */
export interface Proposal {
  readonly capability: string;
  readonly arguments: unknown;
  readonly toolCallId?: string | number;
}
