import { afterEach, describe, expect, it } from '@jest/globals';
import { createMongoAbility } from '@casl/ability';
import { Module } from '@nestjs/common';
import { type TaintLedger, VerdictModule, fingerprintString, taintTenantKey } from '@verdict/nestjs';
import { runVerdictCli, VerdictCliModule } from '@verdict/nestjs/cli';
import { TypeOrmTaintLedger, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const NOW = new Date(Date.UTC(2026, 5, 1, 12));

afterEach(() => {
  process.exitCode = undefined;
});

/** Runs `verdict <argv>` in this process, with `ledger` as the module's taint ledger (or none); exit code and output. */
async function cli(ledger: TaintLedger | undefined, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  @Module({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility([]) },
        clock: () => NOW,
        provenance: ledger === undefined ? {} : { taint: { ledger } },
      }),
      VerdictCliModule.forRoot({ streams: { out: (text) => out.push(text), err: (text) => err.push(text) } }),
    ],
  })
  class CliModule {}
  process.exitCode = undefined;
  await runVerdictCli(CliModule, { argv });
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

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
