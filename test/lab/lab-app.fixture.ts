import { afterEach } from '@jest/globals';
import { compiledScript } from '@verdict/testing-kit';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { LabModule } from '../../apps/storefront-lab/src/lab.module.js';
import type { LabOptions } from '../../apps/storefront-lab/src/lab-options.js';

/** The compiled lab CLI (what `npm run verdict` runs after building); refuses a build older than the sources. */
export function labCli(): string {
  return compiledScript(new URL('../../apps/storefront-lab/dist/cli.js', import.meta.url));
}

/** The lab's default actor: customer 72 at acme. */
export const CUSTOMER_72 = { customerId: 72, tenant: 'acme' } as const;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * The lab application on a fresh SQLite file (with the live lab's provider and clock, if given), closed and deleted
 * after the test.
 */
export async function bootLab(
  options: Pick<LabOptions, 'live' | 'clock'> = {},
): Promise<{ app: INestApplication; dataSource: DataSource }> {
  const directory = await mkdtemp(join(tmpdir(), 'verdict-lab-'));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  const moduleRef = await Test.createTestingModule({
    imports: [LabModule.forRoot({ database: join(directory, 'lab.sqlite'), ...options })],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  cleanups.push(() => app.close());
  return { app, dataSource: app.get(DataSource) };
}
