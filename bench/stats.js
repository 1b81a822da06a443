/** Small statistics helpers shared by the benchmark scripts. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Times `fn` once per call, in microseconds. */
export async function timeCalls(fn, calls) {
  const samples = new Array(calls);
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    samples[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  return samples;
}

/**
 * Runs the variants in interleaved rounds (so machine noise hits all of them alike) and returns the
 * median, p95 and mean per-call time of each, in microseconds.
 */
export async function compare(variants, { rounds = 15, callsPerRound = 400, warmup = 2000 } = {}) {
  for (const fn of Object.values(variants)) await timeCalls(fn, warmup);
  const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, fn] of Object.entries(variants)) samples[name].push(...(await timeCalls(fn, callsPerRound)));
  }
  return Object.fromEntries(
    Object.entries(samples).map(([name, values]) => [
      name,
      { median: median(values), p95: percentile(values, 95), mean: values.reduce((a, b) => a + b, 0) / values.length },
    ]),
  );
}

export const fmt = (n, digits = 1) => n.toFixed(digits);
