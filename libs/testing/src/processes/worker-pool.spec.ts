import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BarrierProbeRequest } from '../fixtures/barrier-probe-worker.js';
import { WorkerPool } from './worker-pool.js';

const PROBE = new URL('../../dist/fixtures/barrier-probe-worker.js', import.meta.url);
const WORKERS = 4;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const directory = mkdtempSync(join(tmpdir(), 'verdict-barrier-'));
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  const pool = await WorkerPool.start<{ directory: string }, BarrierProbeRequest, number>(PROBE, WORKERS, {
    directory,
  });
  cleanups.push(() => pool.close());
  return { pool };
}

describe('WorkerPool', () => {
  describe('broadcast', () => {
    it('holds every call until the slowest worker has prepared its own', async () => {
      const { pool } = await setup();
      // Worker 0 prepares only after every other worker has: without a barrier, those would have run first.
      const seen = await pool.broadcast((index) => ({ index, count: WORKERS }));
      expect(seen).toEqual(Array.from({ length: WORKERS }, () => WORKERS));
    });
  });
});
