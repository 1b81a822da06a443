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
 * Runs the variants in interleaved rounds (so machine noise hits all of them alike) and returns, per variant,
 * the median and p95 per-call time and the process CPU time per call (user + system, every thread: what a
 * call costs in total, including work it leaves for later in the same loop), in microseconds.
 */
export async function compare(variants, { rounds = 15, callsPerRound = 400, warmup = 2000 } = {}) {
  for (const fn of Object.values(variants)) await timeCalls(fn, warmup);
  const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  const cpu = Object.fromEntries(Object.keys(variants).map((name) => [name, 0]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, fn] of Object.entries(variants)) {
      const before = process.cpuUsage();
      samples[name].push(...(await timeCalls(fn, callsPerRound)));
      const used = process.cpuUsage(before);
      cpu[name] += used.user + used.system;
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([name, values]) => [
      name,
      { median: median(values), p95: percentile(values, 95), cpu: cpu[name] / values.length },
    ]),
  );
}

export const fmt = (n, digits = 1) => n.toFixed(digits);
