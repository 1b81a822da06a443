import type { JsonValue } from '../fingerprints/json-value.js';
import type { Envelope } from '../pipeline/envelope.js';

/**
 * A semantic fixed-window limit on authorized execution attempts (docs/execution-claims-and-rate-limits.md): windows aligned to the
 * epoch, at the limit refuse without incrementing. The key is the bucket, from trusted data (actor,
 * tenant, resource): a permission is not a budget.
 */
export interface FixedWindowPolicy<TArgs = any, TTarget = any> {
  readonly algorithm: 'fixed_window';
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
  readonly key: (envelope: Envelope<TArgs>, target: TTarget) => JsonValue;
  /** The internal reason recorded when the limit refuses (never shown to the model). */
  readonly reason: string;
}

/**
 * @example
 * rateLimit: fixedWindow({ name: 'refresh-per-customer', limit: 2, windowSeconds: 3600,
 *   key: ({ context }) => ({ tenant: context.tenant, customer: (context.actor as Actor).customerId }),
 *   reason: 'shipment refresh budget exhausted' })
 */
export function fixedWindow<TArgs, TTarget>(policy: Omit<FixedWindowPolicy<TArgs, TTarget>, 'algorithm'>): FixedWindowPolicy<TArgs, TTarget> {
  return Object.freeze({ ...policy, algorithm: 'fixed_window' as const });
}

/** `floor(t / w) * w`: the start of the window holding `now`. */
export function windowStartOf(now: Date, windowSeconds: number): Date {
  const width = windowSeconds * 1000;
  return new Date(Math.floor(now.getTime() / width) * width);
}
