import type { WorkerPool } from './worker-pool.js';

/**
 * Keeps the processes of closed worker pools for the next pool of the same script and size, so a test file that races
 * on several engines starts its workers once: each `start` with the keeper gives the kept processes the next
 * engine's init instead of forking new ones. A pool with a killed worker is never kept. `close` ends every kept
 * process; call it when the file is done.
 *
 * @example
 * const keeper = new WorkerKeeper();
 * afterAll(() => keeper.close());
 * const workers = await startGateWorkers({ count: 8, dataSource, keeper }); // `workers.close()` keeps the processes
 */
export class WorkerKeeper {
  private readonly kept = new Map<string, WorkerPool<unknown, unknown>>();
  private closed = false;

  /** The pool kept for `script` and `count`, which is no longer kept; `undefined` when there is none. */
  take(script: URL, count: number): WorkerPool<unknown, unknown> | undefined {
    const key = keyOf(script, count);
    const pool = this.kept.get(key);
    this.kept.delete(key);
    return pool;
  }

  /**
   * Keeps `pool`, whose workers have closed their resources; a pool already kept for the same key is stopped. Once the
   * keeper is closed (a test outlived its file's `afterAll`), `pool` is stopped instead.
   */
  async keep(script: URL, count: number, pool: WorkerPool<unknown, unknown>): Promise<void> {
    if (this.closed) return pool.stop();
    const key = keyOf(script, count);
    const previous = this.kept.get(key);
    this.kept.set(key, pool);
    if (previous !== undefined && previous !== pool) await previous.stop();
  }

  /** Ends every kept process. */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.kept.values()];
    this.kept.clear();
    await Promise.all(pools.map((pool) => pool.stop()));
  }
}

function keyOf(script: URL, count: number): string {
  return `${count} ${script.href}`;
}
