import { MAX_ATTRIBUTION_LENGTH, isAttribution } from '../shared/is-attribution.js';

/**
 * The longest approver id (`by`, `approver.id`) a receipt holds: its `approved_by` and `rejected_by` columns are
 * `varchar(255)` on every engine (the rule of every attribution, {@link MAX_ATTRIBUTION_LENGTH}). A longer one is
 * refused before anything is recorded, alike everywhere.
 */
export const MAX_APPROVER_ID_LENGTH = MAX_ATTRIBUTION_LENGTH;

/** Whether `value` is an approver id a receipt can hold: a non-blank string of at most {@link MAX_APPROVER_ID_LENGTH} characters. */
export const isApproverId: (value: unknown) => boolean = isAttribution;
