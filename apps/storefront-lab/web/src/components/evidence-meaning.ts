/** What each evidence field of a decision record means, for the hover text of its (shortened) value. */
const MEANINGS: Readonly<Record<string, string>> = {
  stream: 'The evidence stream this record is chained in.',
  argumentsFingerprint:
    'SHA-256 of the canonical arguments: the same arguments give the same fingerprint, the values are not kept.',
  toolCallFingerprint: "SHA-256 of the model's tool-call id (the id itself is never stored).",
  actorFingerprint: 'SHA-256 of the actor key: who proposed the call, without who it is.',
  targetFingerprint: 'SHA-256 of the resolved target: the resource the decision was about.',
  targetPolicy: 'How the target is resolved and refreshed.',
  targetStrategy: 'How the target was read again before execution.',
  proposalIdentityFingerprint: 'SHA-256 of the target as resolved from the proposal.',
  executionIdentityFingerprint: 'SHA-256 of the target as refreshed right before execution.',
  identityMatch: 'Whether the refreshed target is the one that was checked (false: resource substitution).',
  receiptFingerprint: 'SHA-256 of the approval receipt or review item id.',
  claimFingerprint: 'SHA-256 of the execution claim key: one claim per operation.',
  claimStatus: 'The execution claim after this stage.',
  claimAttempt: 'How many times this operation was attempted.',
  budgetKey: 'SHA-256 of the budget key (which window was counted).',
  recordedAt: 'When Verdict recorded this stage.',
  previousHash: 'The hash of the record before this one in the chain: editing a record breaks the chain.',
  recordHash: "This record's hash in the evidence chain.",
};

/** The hover text of an evidence field: what it is, and that a long hex value is a fingerprint. */
export function evidenceMeaning(field: string): string {
  return (
    MEANINGS[field] ?? (/Fingerprint$/.test(field) ? 'A SHA-256 fingerprint: the value itself is not kept.' : field)
  );
}
