import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { VerdictConfigurationError, VerdictModule } from '@verdict/nestjs';
import {
  TypeOrmApprovalReceiptStore,
  TypeOrmBudgetStore,
  TypeOrmContainmentStore,
  TypeOrmEvidenceQuery,
  TypeOrmEvidenceRecorder,
  TypeOrmExecutionClaimStore,
  TypeOrmProvenanceContentStore,
  TypeOrmProvenanceLedger,
  TypeOrmRateLimitStore,
  TypeOrmReviewItemStore,
  TypeOrmTaintLedger,
  TypeOrmTrajectoryStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource, withDataSource } from '@verdict/testing-kit';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

/** Every TypeORM store, recorder and reader Verdict ships, built on `dataSource`. */
const stores: [string, (dataSource: DataSource) => unknown][] = [
  ['TypeOrmEvidenceRecorder', (dataSource) => new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' })],
  ['TypeOrmEvidenceQuery', (dataSource) => new TypeOrmEvidenceQuery(dataSource)],
  ['TypeOrmExecutionClaimStore', (dataSource) => new TypeOrmExecutionClaimStore(dataSource)],
  ['TypeOrmRateLimitStore', (dataSource) => new TypeOrmRateLimitStore(dataSource)],
  ['TypeOrmBudgetStore', (dataSource) => new TypeOrmBudgetStore(dataSource)],
  ['TypeOrmApprovalReceiptStore', (dataSource) => new TypeOrmApprovalReceiptStore(dataSource)],
  ['TypeOrmTrajectoryStore', (dataSource) => new TypeOrmTrajectoryStore(dataSource)],
  ['TypeOrmContainmentStore', (dataSource) => new TypeOrmContainmentStore(dataSource)],
  ['TypeOrmProvenanceLedger', (dataSource) => new TypeOrmProvenanceLedger(dataSource)],
  ['TypeOrmProvenanceContentStore', (dataSource) => new TypeOrmProvenanceContentStore(dataSource)],
  ['TypeOrmReviewItemStore', (dataSource) => new TypeOrmReviewItemStore(dataSource)],
  ['TypeOrmTaintLedger', (dataSource) => new TypeOrmTaintLedger(dataSource)],
];

/** `options` with mysql2's `timezone` (and `extra`) replaced; `undefined` leaves it unset. */
function withTimezone(options: DataSourceOptions, timezone: string | undefined, extra?: object): DataSource {
  const { timezone: _given, ...rest } = options as DataSourceOptions & { timezone?: string };
  return new DataSource({
    ...rest,
    ...(timezone === undefined ? {} : { timezone }),
    ...(extra === undefined ? {} : { extra }),
  } as DataSourceOptions);
}

/** A 15-minute receipt issued at `now` through `store`. */
const issue = (store: TypeOrmApprovalReceiptStore, id: string, now: Date) =>
  store.issue({
    candidateId: id,
    toolCallId: `call_${id}`,
    capability: 'documents.archive',
    bindingFingerprint: 'b'.repeat(64),
    reason: 'Archiving hides the document.',
    description: null,
    subject: null,
    expiresAt: new Date(now.getTime() + 15 * 60_000),
    now,
  });

// docs/options.md: Verdict's instants are datetime(3) on MySQL/MariaDB, which has no zone; mysql2 writes and reads
// them in the DataSource's `timezone` ('local' when unset), so any timezone but UTC moves every expiry and timestamp
// by the offset between the writing and the reading process (a 15-minute receipt issued in Tokyo still pending ten
// hours later in Los Angeles). The stores refuse such a DataSource when they are built, at boot.
for (const engine of databaseEngines().filter(({ name }) => name === 'mariadb')) {
  describe(`A MySQL/MariaDB DataSource must use a UTC timezone [${engine.name}]`, () => {
    /** One migrated database for the file, on a DataSource with timezone 'Z'. */
    let migrated: DataSource;
    beforeAll(async () => (migrated = await openDataSource(engine, SCHEMA)));
    afterAll(() => dropDataSource(migrated));

    describe.each([
      ['unset', undefined, undefined],
      ["'local'", 'local', undefined],
      ["'+09:00'", '+09:00', undefined],
      ["'UTC' (not a mysql2 spelling)", 'UTC', undefined],
      ["'Z', overridden by extra.timezone 'local'", 'Z', { timezone: 'local' }],
    ])('attack: timezone %s', (_label, timezone, extra) => {
      it.each(stores)('%s is refused with VerdictConfigurationError naming the fix', (_store, build) => {
        expect(() => build(withTimezone(migrated.options, timezone, extra))).toThrow(VerdictConfigurationError);
        expect(() => build(withTimezone(migrated.options, timezone, extra))).toThrow(/timezone: 'Z'/);
      });
    });

    it('attack: the module does not boot with a TypeORM store on a DataSource without a timezone', async () => {
      await expect(bootWith(withTimezone(migrated.options, undefined))).rejects.toThrow(VerdictConfigurationError);
    });

    describe.each([
      ["'Z'", 'Z', undefined],
      ["'+00:00'", '+00:00', undefined],
      ["'-00:00'", '-00:00', undefined],
      ["unset, extra.timezone 'Z'", undefined, { timezone: 'Z' }],
    ])('control: timezone %s', (label, timezone, extra) => {
      it('every store is built, and the module boots', async () => {
        const dataSource = withTimezone(migrated.options, timezone, extra);
        for (const [, build] of stores) expect(build(dataSource)).toBeDefined();
        const moduleRef = await bootWith(dataSource);
        await moduleRef.close();
      });

      it("a receipt reads back the same instants through the 'Z' DataSource, stored as UTC", async () => {
        const dataSource = await withTimezone(migrated.options, timezone, extra).initialize();
        const id = `rcpt_${label}`;
        try {
          const now = new Date('2026-06-01T12:00:00.000Z');
          await issue(new TypeOrmApprovalReceiptStore(dataSource), id, now);
          expect(await new TypeOrmApprovalReceiptStore(migrated).find(id)).toMatchObject({
            createdAt: now,
            expiresAt: new Date('2026-06-01T12:15:00.000Z'),
          });
          expect(
            await migrated.query(
              'SELECT CAST(expires_at AS CHAR) AS expires FROM verdict_approval_receipts WHERE id = ?',
              [id],
            ),
          ).toEqual([{ expires: '2026-06-01 12:15:00.000' }]);
        } finally {
          await dataSource.destroy();
        }
      });
    });
  });
}

// Other engines keep their instants with a zone (timestamptz) or in UTC text (SQLite): no timezone option applies.
for (const engine of databaseEngines().filter(({ name }) => name !== 'mariadb')) {
  describe(`Other engines need no timezone [${engine.name}]`, () => {
    it('control: every store is built on a DataSource without one', async () => {
      await withDataSource(engine, SCHEMA, async (migrated) => {
        for (const [, build] of stores) expect(build(migrated)).toBeDefined();
      });
    });
  });
}

/** Boots VerdictModule with its evidence on `dataSource`, the store built in the module's factory. */
async function bootWith(dataSource: DataSource) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRootAsync({
        useFactory: () => ({
          abilityFactory: { createForContext: () => createMongoAbility([]) },
          evidence: new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }),
        }),
      }),
    ],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}
