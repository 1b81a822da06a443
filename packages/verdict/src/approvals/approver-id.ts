import { MAX_ATTRIBUTION_LENGTH, isAttribution } from '../shared/is-attribution.js';

/**
 * The longest approver id (`by`, `approver.id`) a receipt holds: its `approved_by` and `rejected_by` columns are
 * `varchar(255)` on every engine (the rule of every attribution, {@link MAX_ATTRIBUTION_LENGTH}). A longer one is
 * refused before anything is recorded, alike everywhere.
 */
export const MAX_APPROVER_ID_LENGTH = MAX_ATTRIBUTION_LENGTH;

/**
 * Whether `value` is an approver id a receipt can hold: a non-blank string of at most {@link MAX_APPROVER_ID_LENGTH}
 * characters, well-formed and without U+0000 (`isAttribution`).
 */
export const isApproverId: (value: unknown) => boolean = isAttribution;

/**
 * Whether an `approver` or `reviewer` hook answered somebody: an object whose `id` is a non-blank string. `null`,
 * `undefined` (a hook written `user && { id, context }` on a request nobody signed in to), another value or a blank
 * id names nobody, and the endpoint guards answer 401 before anything is looked up. An id past
 * {@link MAX_APPROVER_ID_LENGTH} is somebody: the service refuses it as a wiring fault (`isApproverId`).
 */
export function isAuthenticatedApprover(value: unknown): value is { readonly id: string } {
  if (typeof value !== 'object' || value === null) return false;
  const id: unknown = (value as { id?: unknown }).id;
  return typeof id === 'string' && id.trim() !== '';
}
