import betaQuantile from '@stdlib/stats-base-dists-beta-quantile';

/** A two-sided exact binomial confidence interval. */
export interface BinomialInterval {
  readonly lower: number;
  readonly upper: number;
}

/**
 * The exact (Clopper–Pearson) two-sided confidence interval of a binomial proportion: `events` of
 * `trials`, at `confidence` (default 0.95). With α = 1 − confidence the bounds are the beta quantiles
 * `lower = B(α/2; k, n−k+1)` and `upper = B(1−α/2; k+1, n−k)`, with `lower = 0` at k = 0 and `upper = 1`
 * at k = n. The upper bound of the two-sided 95% interval is the one-sided 97.5% bound: 0 of 25 gives
 * 0.1372 (the one-sided 95% bound, `1 − 0.05^(1/25)`, would be 0.1129).
 *
 * @example
 * clopperPearson(0, 25).upper; // 0.13719…
 * @throws RangeError unless 0 ≤ events ≤ trials, trials ≥ 1, both integers, and 0 < confidence < 1
 */
export function clopperPearson(events: number, trials: number, confidence = 0.95): BinomialInterval {
  if (!Number.isInteger(trials) || trials < 1) throw new RangeError('trials must be a positive integer');
  if (!Number.isInteger(events) || events < 0 || events > trials)
    throw new RangeError('events must be an integer between 0 and trials');
  if (!(confidence > 0 && confidence < 1)) throw new RangeError('confidence must lie strictly between 0 and 1');
  const alpha = 1 - confidence;
  return {
    lower: events === 0 ? 0 : betaQuantile(alpha / 2, events, trials - events + 1),
    upper: events === trials ? 1 : betaQuantile(1 - alpha / 2, events + 1, trials - events),
  };
}
