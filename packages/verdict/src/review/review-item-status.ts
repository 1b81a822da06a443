/**
 * The states of a review item (docs/review-lane.md): `pending → approved | rejected`, and an approved item's
 * deferred run settles it `approved → executed | refused`. Expiry is not a state: an item is expired when
 * `now >= expiresAt`, and an expired item is never approved nor executed.
 */
export const ReviewItemStatus = {
  Pending: 'pending',
  Approved: 'approved',
  Rejected: 'rejected',
  Executed: 'executed',
  Refused: 'refused',
} as const;

export type ReviewItemStatus = (typeof ReviewItemStatus)[keyof typeof ReviewItemStatus];
