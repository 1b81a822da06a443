import { Disposition } from './disposition.js';

/**
 * What a decision recorded in shadow mode would have been (docs/shadow-mode.md): the step refused, but its policy is
 * declared `enforce: false`, so the call went on. Only evidence and events carry it; a run's own decision never does.
 */
export const ShadowDisposition = {
  /** Enforcement would have refused the call (`deny`, or `throttle` at a rate limit or spend budget). */
  WouldDeny: 'would_deny',
  /** Enforcement would have asked a human to confirm the call first (`require_confirmation`). */
  WouldConfirm: 'would_confirm',
} as const;

export type ShadowDisposition = (typeof ShadowDisposition)[keyof typeof ShadowDisposition];

/** A disposition as evidence holds it: the decision's own, or the shadow of one that was not enforced. */
export type RecordedDisposition = Disposition | ShadowDisposition;

const SHADOW_DISPOSITIONS: ReadonlySet<unknown> = new Set(Object.values(ShadowDisposition));

/** Whether `value` is one of the {@link ShadowDisposition}s. */
export function isShadowDisposition(value: unknown): value is ShadowDisposition {
  return SHADOW_DISPOSITIONS.has(value);
}

/**
 * The shadow of a refusal: `would_deny` for `deny` and `throttle`, `would_confirm` for `require_confirmation`;
 * `null` for `permit` and `require_review` (the review lane is never softened).
 */
export function shadowOf(disposition: Disposition): ShadowDisposition | null {
  switch (disposition) {
    case Disposition.Deny:
    case Disposition.Throttle:
      return ShadowDisposition.WouldDeny;
    case Disposition.RequireConfirmation:
      return ShadowDisposition.WouldConfirm;
    default:
      return null;
  }
}
