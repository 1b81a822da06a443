import { afterEach, describe, expect, it } from '@jest/globals';
import { type TaintLedger, fingerprintString, taintTenantKey } from '@verdict/nestjs';
import { TypeOrmTaintLedger, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';
import { inProcessCli } from './in-process-cli.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const NOW = new Date(Date.UTC(2026, 5, 1, 12));

afterEach(() => {
  process.exitCode = undefined;
});

/** Runs `verdict <argv>` with `ledger` as the module's taint ledger (or none). */
const cli = (ledger: TaintLedger | undefined, ...argv: string[]) =>
  inProcessCli({ clock: () => NOW, provenance: ledger === undefined ? {} : { taint: { ledger } } }, ...argv);

describe('operator CLI: taint prune', () => {
  for (const engine of databaseEngines()) {
    it(`deletes the entries whose retention has passed at the module's clock, and only those [${engine.name}]`, async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const ledger = new TypeOrmTaintLedger(dataSource);
        const tenant = taintTenantKey('acme');
        const [expired, current] = [fingerprintString('expired'), fingerprintString('current')];
        await ledger.record(tenant, [expired], new Date(NOW.getTime() - 1));
        await ledger.record(tenant, [current], new Date(NOW.getTime() + 1));

        expect(await cli(ledger, 'taint', 'prune', '--json')).toEqual({ code: 0, stdout: '{"pruned":1}', stderr: '' });
        expect(await cli(ledger, 'taint', 'prune')).toMatchObject({
          code: 0,
          stdout: 'pruned 0 expired taint entries',
        });
        expect(await ledger.tainted(tenant, [expired, current], new Date(0))).toEqual(new Set([current]));
      });
    });
  }

  it('fails with what to configure when the module has no taint ledger', async () => {
    const result = await cli(undefined, 'taint', 'prune', '--json');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'No taint ledger is configured: pass `provenance: { taint: { ledger } }` to VerdictModule.forRoot.',
    });
  });
});
