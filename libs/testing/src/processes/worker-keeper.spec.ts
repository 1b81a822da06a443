import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BarrierProbeRequest } from '../fixtures/barrier-probe-worker.js';
import { WorkerKeeper } from './worker-keeper.js';
import { WorkerPool } from './worker-pool.js';

const PROBE = new URL('../../dist/fixtures/barrier-probe-worker.js', import.meta.url);
const WORKERS = 3;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A directory of its own for one init: each worker's prepared call leaves its marker file there. */
function directory(): string {
  const path = mkdtempSync(join(tmpdir(), 'verdict-keeper-'));
  cleanups.push(() => rmSync(path, { recursive: true, force: true }));
  return path;
}

const start = (keeper: WorkerKeeper, init: string) =>
  WorkerPool.start<{ directory: string }, BarrierProbeRequest, number>(PROBE, WORKERS, { directory: init }, keeper);
const probe = (pool: WorkerPool<BarrierProbeRequest, number>) => pool.broadcast((index) => ({ index, count: WORKERS }));

describe('WorkerKeeper', () => {
  it("gives a closed pool's processes to the next start of the same script and size, with the new init", async () => {
    const keeper = new WorkerKeeper();
    cleanups.push(() => keeper.close());
    const [first, second] = [directory(), directory()];

    const pool = await start(keeper, first);
    await probe(pool);
    await pool.close();
    const again = await start(keeper, second);
    cleanups.push(() => again.stop());
    await probe(again);

    expect(again).toBe(pool);
    // Each init's calls went to its own directory: the second init replaced the first, which every worker closed
    // when its pool was closed; the second is still open.
    const closed = (path: string) => readdirSync(path).filter((name) => name.startsWith('closed-'));
    const markers = (path: string) => readdirSync(path).filter((name) => !name.startsWith('closed-'));
    expect({ markers: markers(first).sort(), closed: closed(first).length }).toEqual({
      markers: ['0', '1', '2'],
      closed: WORKERS,
    });
    expect({ markers: markers(second).sort(), closed: closed(second).length }).toEqual({
      markers: ['0', '1', '2'],
      closed: 0,
    });
  });

  it('forks new processes for a pool that lost a worker, and for another size', async () => {
    const keeper = new WorkerKeeper();
    cleanups.push(() => keeper.close());

    const pool = await start(keeper, directory());
    await pool.kill(1);
    await pool.close();
    const replaced = await start(keeper, directory());
    expect(await probe(replaced)).toHaveLength(WORKERS);
    await replaced.close();
    const other = await WorkerPool.start<{ directory: string }, BarrierProbeRequest, number>(
      PROBE,
      WORKERS + 1,
      { directory: directory() },
      keeper,
    );
    cleanups.push(() => other.stop());

    expect(replaced).not.toBe(pool);
    expect(other).not.toBe(replaced);
  });

  it('forks new processes when a kept worker died before the next start', async () => {
    const keeper = new WorkerKeeper();
    cleanups.push(() => keeper.close());

    const pool = await start(keeper, directory());
    await pool.close();
    await pool.kill(2);
    const replaced = await start(keeper, directory());
    cleanups.push(() => replaced.stop());

    expect(replaced).not.toBe(pool);
    expect(await probe(replaced)).toHaveLength(WORKERS);
    await expect(pool.send(0, { index: 0, count: 1 })).rejects.toThrow('Worker 0 is not running.');
  });

  it('stops a pool closed after the keeper was, instead of keeping it', async () => {
    const keeper = new WorkerKeeper();
    const pool = await start(keeper, directory());
    await keeper.close();

    await pool.close();

    await expect(pool.send(0, { index: 0, count: 1 })).rejects.toThrow('Worker 0 is not running.');
  });

  it('ends every kept process when it closes', async () => {
    const keeper = new WorkerKeeper();
    const pool = await start(keeper, directory());
    await pool.close();

    await keeper.close();

    await expect(pool.send(0, { index: 0, count: 1 })).rejects.toThrow('Worker 0 is not running.');
  });
});
