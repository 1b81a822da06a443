import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { InMemoryTaintLedger, OuterTransactionError, fingerprintString, taintTenantKey } from '@verdict/nestjs';
import { describeTaintLedgerContract } from '@verdict/nestjs/testing';
import { TypeOrmTaintLedger, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import {
  countingStatements,
  databaseEngines,
  dropDataSource,
  openDataSource,
  remigrate,
  withDataSource,
} from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';
import { CreateTaintEntries1797000430000 } from '../../packages/verdict/src/typeorm/migrations/1797000430000-create-taint-entries.js';

const TABLE = 'verdict_taint_entries';
const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const LATER = new Date(Date.UTC(2099, 0, 1));
const NOW = new Date(Date.UTC(2024, 0, 1));
const values = (count: number) => Array.from({ length: count }, () => fingerprintString(randomUUID()));

describeTaintLedgerContract('memory', async () => ({ ledger: new InMemoryTaintLedger(), close: async () => {} }));

for (const engine of databaseEngines()) {
  describeTaintLedgerContract(engine.name, async () => {
    const dataSource = await openDataSource(engine, SCHEMA);
    return { ledger: new TypeOrmTaintLedger(dataSource), close: () => dropDataSource(dataSource) };
  });

  describe(`TypeOrmTaintLedger [${engine.name}]`, () => {
    it('has no column that could hold a value: fingerprints and an expiry only', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const table = await dataSource.createQueryRunner().getTable(TABLE);
        expect(table?.columns.map((column) => column.name).sort()).toEqual([
          'expires_at',
          'fingerprint',
          'tenant_fingerprint',
        ]);
      });
    });

    it('rejects with the database error when the ledger fails', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        await dataSource.query(`DROP TABLE ${TABLE}`);
        const ledger = new TypeOrmTaintLedger(dataSource);

        await expect(ledger.record(taintTenantKey('acme'), values(1), LATER)).rejects.toThrow(/verdict_taint_entries/);
        await expect(ledger.tainted(taintTenantKey('acme'), values(1), NOW)).rejects.toThrow(/verdict_taint_entries/);
        await expect(ledger.prune(NOW)).rejects.toThrow(/verdict_taint_entries/);
      });
    });

    if (engine.name === 'sqlite') {
      it('refuses to record inside an outer transaction on the same connection, and records nothing', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const ledger = new TypeOrmTaintLedger(dataSource);
          const tenant = taintTenantKey('acme');
          const [value] = values(1);
          await inRolledBackTransaction(dataSource, () =>
            expect(ledger.record(tenant, [value!], LATER)).rejects.toThrow(OuterTransactionError),
          );

          expect(await ledger.tainted(tenant, [value!], NOW)).toEqual(new Set());
        });
      });
    } else {
      it('records on a connection of its own: an application rollback does not clean a value', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const ledger = new TypeOrmTaintLedger(dataSource);
          const tenant = taintTenantKey('acme');
          const [value] = values(1);
          await inRolledBackTransaction(dataSource, () => ledger.record(tenant, [value!], LATER));

          expect(await ledger.tainted(tenant, [value!], NOW)).toEqual(new Set([value]));
        });
      });

      it('looks a proposal up in one statement, and records it in one', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const statements = await countingStatements(dataSource);
          try {
            const ledger = new TypeOrmTaintLedger(statements.dataSource);
            const tenant = taintTenantKey('acme');
            const candidates = values(10);

            expect(await statements.during(() => ledger.record(tenant, candidates.slice(0, 4), LATER))).toBe(1);
            expect(await statements.during(() => ledger.tainted(tenant, candidates, NOW))).toBe(1);
            expect(await ledger.tainted(tenant, candidates, NOW)).toEqual(new Set(candidates.slice(0, 4)));
          } finally {
            await statements.dataSource.destroy();
          }
        });
      });

      it('looks up by the primary key (tenant_fingerprint, fingerprint): the plan names the index', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const ledger = new TypeOrmTaintLedger(dataSource);
          // Enough rows, over enough tenants, that a scan would cost more than the index.
          for (let tenant = 0; tenant < 20; tenant++)
            await ledger.record(taintTenantKey(`tenant-${tenant}`), values(200), LATER);
          const asked = values(10);
          expect(
            await usedIndex(dataSource, ledger.lookupSql(asked.length), [taintTenantKey('tenant-3'), ...asked, NOW]),
          ).toBe(engine.name === 'postgres' ? 'pk_verdict_taint_entries' : 'PRIMARY');
        });
      });
    }
  });

  describe(`CreateTaintEntries migration [${engine.name}]`, () => {
    it('drops the table on down, and up creates it again with its key and index', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const table = await remigrate(dataSource, new CreateTaintEntries1797000430000(), TABLE);
        expect(table.primaryColumns.map((column) => column.name).sort()).toEqual(['fingerprint', 'tenant_fingerprint']);
        expect(table.indices.map((index) => index.name)).toEqual(['idx_verdict_taint_entries_expires_at']);
        const ledger = new TypeOrmTaintLedger(dataSource);
        const [value] = values(1);
        await ledger.record(taintTenantKey('acme'), [value!], LATER);
        expect(await ledger.tainted(taintTenantKey('acme'), [value!], NOW)).toEqual(new Set([value]));
      });
    });
  });
}

/** Runs `action` while the application holds a transaction open on `dataSource`, then rolls it back. */
async function inRolledBackTransaction(dataSource: DataSource, action: () => Promise<unknown>): Promise<void> {
  const queryRunner = dataSource.createQueryRunner();
  await queryRunner.startTransaction();
  try {
    await action();
  } finally {
    await queryRunner.rollbackTransaction();
    await queryRunner.release();
  }
}

/** The index the engine's plan reads the lookup through (after ANALYZE, as a production table would be). */
async function usedIndex(dataSource: DataSource, sql: string, parameters: unknown[]): Promise<string | undefined> {
  if (dataSource.options.type === 'postgres') {
    await dataSource.query(`ANALYZE ${TABLE}`);
    const rows: Array<{ 'QUERY PLAN': unknown }> = await dataSource.query(`EXPLAIN (FORMAT JSON) ${sql}`, parameters);
    const plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
    return /"Index Name":"([^"]+)"/.exec(plan)?.[1];
  }
  await dataSource.query(`ANALYZE TABLE ${TABLE}`);
  const rows: Array<{ key: string | null }> = await dataSource.query(`EXPLAIN ${sql}`, parameters);
  return rows[0]?.key ?? undefined;
}
