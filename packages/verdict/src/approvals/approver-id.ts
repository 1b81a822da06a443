/**
 * The longest approver id (`by`, `approver.id`) a receipt holds: its `approved_by` and `rejected_by` columns are
 * `varchar(255)` on every engine. A longer one is refused before anything is recorded, alike everywhere.
 */
export const MAX_APPROVER_ID_LENGTH = 255;

/** Whether `value` is an approver id a receipt can hold: a non-blank string of at most {@link MAX_APPROVER_ID_LENGTH} characters. */
export function isApproverId(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '' && value.length <= MAX_APPROVER_ID_LENGTH;
}
