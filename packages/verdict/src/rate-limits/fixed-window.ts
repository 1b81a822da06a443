import type { ActionContext, AnyActionContext } from '../context/action-context.js';
import type { JsonValue } from '../fingerprints/json-value.js';
import type { Envelope } from '../vocabulary/envelope.js';
import { type InferredFromCapability, inferredFromCapability } from '../capabilities/inferred-from-capability.js';
import { isPositiveInteger } from '../shared/is-positive-integer.js';

/**
 * A semantic fixed-window limit on authorized execution attempts (docs/execution-claims-and-rate-limits.md): windows aligned to the
 * epoch, at the limit refuse without incrementing. The key is the bucket, from trusted data (actor,
 * tenant, resource): a permission is not a budget.
 */
export interface FixedWindowPolicy<TArgs = any, TTarget = any, TContext extends AnyActionContext = any> {
  readonly algorithm: 'fixed_window';
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
  readonly key: (envelope: Envelope<TArgs, TContext>, target: TTarget) => JsonValue;
  /** The internal reason recorded when the limit refuses (never shown to the model). */
  readonly reason: string;
}

/** What {@link fixedWindow} returns: inline in a capability, its types are the capability's. */
export interface TypedFixedWindowPolicy<TArgs, TTarget, TContext extends AnyActionContext>
  extends FixedWindowPolicy<TArgs, TTarget, TContext>, InferredFromCapability {}

/**
 * Inline in `@Capability({...})` or `defineCapability({...})`, the envelope and target are the capability's types.
 *
 * @example
 * rateLimit: fixedWindow({ name: 'refresh-per-customer', limit: 2, windowSeconds: 3600,
 *   key: ({ context }, order) => ({ tenant: context.tenant, customer: context.actor.customerId, order: order.id }),
 *   reason: 'shipment refresh budget exhausted' })
 */
export function fixedWindow<TArgs, TTarget, TContext extends AnyActionContext = ActionContext>(
  policy: Omit<FixedWindowPolicy<TArgs, TTarget, TContext>, 'algorithm'>,
): TypedFixedWindowPolicy<TArgs, TTarget, TContext> {
  return inferredFromCapability(Object.freeze({ ...policy, algorithm: 'fixed_window' as const }));
}

/**
 * The longest window a rate limit or budget takes, and the longest `ttlSeconds` of a confirmation or review: 100 years
 * (3,155,760,000 seconds). Its end then stays within what every engine stores as a time (MySQL/MariaDB `datetime` ends
 * with year 9999, and SQLite compares times as text, so a five-digit year would sort before today and its window be
 * pruned while it holds).
 */
export const MAX_WINDOW_SECONDS = 3_155_760_000;

/** The highest rate limit: a window's count is a 32-bit integer column on every engine. */
export const MAX_RATE_LIMIT = 2_147_483_647;

/** Whether `value` is a whole number of seconds from 1 to {@link MAX_WINDOW_SECONDS}. */
export function isWindowSeconds(value: unknown): boolean {
  return isPositiveInteger(value) && value <= MAX_WINDOW_SECONDS;
}

/** `floor(t / w) * w`: the start of the window holding `now`. */
export function windowStartOf(now: Date, windowSeconds: number): Date {
  const width = windowSeconds * 1000;
  return new Date(Math.floor(now.getTime() / width) * width);
}
