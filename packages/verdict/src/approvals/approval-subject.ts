import { subject } from '@casl/ability';
import type { JsonObject } from '../fingerprints/json-value.js';

/**
 * What an approver's CASL ability is checked against: `subject('Approval', { ...facts, capability })`, built from
 * the receipt's trusted stored facts (the capability's `subject`), never from the model's arguments.
 *
 * @example ability.can('approve', approvalSubject(challenge) as never)
 */
export function approvalSubject(receipt: {
  readonly subject: JsonObject | null;
  readonly capability: string;
}): unknown {
  return subject('Approval', { ...(receipt.subject ?? {}), capability: receipt.capability });
}
