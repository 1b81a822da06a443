import { describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource, type DataSourceOptions } from 'typeorm';
import {
  type ApprovalReceipt,
  type Containment,
  type ReviewItem,
  type ReviewItemDraft,
  fingerprint,
  fingerprintString,
} from '@verdict/nestjs';
import {
  TypeOrmApprovalReceiptStore,
  TypeOrmContainmentStore,
  TypeOrmProvenanceContentStore,
  TypeOrmReviewItemStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { type DatabaseEngine, databaseEngines, onOwnRunner, withDataSource } from '@verdict/testing-kit';
import { WidenReviewAndReceiptTexts1797040196000 } from '../../packages/verdict/src/typeorm/migrations/1797040196000-widen-review-and-receipt-texts.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
/** Every migration of the release before ADR 0196. */
const PREVIOUS = {
  entities: verdictEntities,
  migrations: verdictMigrations.filter((migration) => migration !== WidenReviewAndReceiptTexts1797040196000),
};
const NOW = new Date('2026-01-01T10:00:00.000Z');
/** Past 65,535 bytes, what MySQL/MariaDB's `text` holds: in ASCII, and in emoji of four bytes each. */
const LONG_TEXTS: Array<[string, string]> = [
  ['70,000 ASCII characters', 'x'.repeat(70_000)],
  ['20,000 emoji (80,000 bytes)', '😀'.repeat(20_000)],
];

/** A review item to park whose arguments, requester key, description and subject all hold `note`. */
const reviewDraft = (note: string): ReviewItemDraft => ({
  id: `rvw_${randomUUID()}`,
  capability: 'notes.send',
  arguments: { note },
  requestKey: `call_${randomUUID()}`,
  bindingFingerprint: fingerprint({ binding: randomUUID() }),
  principalFingerprint: fingerprint({ principal: 'alice' }),
  requesterKey: { id: 'alice', note },
  requesterActorFingerprint: null,
  tenant: 'acme',
  conversationId: 'c-1',
  reviewed: true,
  reason: 'Notes are reviewed.',
  description: `Send note: ${note}`,
  subject: { tenantId: 'acme', note },
  expiresAt: new Date(NOW.getTime() + 3_600_000),
  provenance: null,
  now: NOW,
});

/** Parks `draft` and reads it back by id. */
async function parkAndFind(dataSource: DataSource, draft: ReviewItemDraft): Promise<ReviewItem | null> {
  const store = new TypeOrmReviewItemStore(dataSource);
  await store.park(draft);
  return store.find(draft.id);
}

/** Issues a receipt whose description and subject hold `note`, and reads it back by id. */
async function issueAndFind(dataSource: DataSource, note: string): Promise<ApprovalReceipt | null> {
  const store = new TypeOrmApprovalReceiptStore(dataSource);
  const issued = await store.issue({
    candidateId: randomBytes(32).toString('base64url'),
    toolCallId: `call_${randomUUID()}`,
    capability: 'notes.send',
    bindingFingerprint: fingerprint({ binding: randomUUID() }),
    reason: 'Notes are confirmed.',
    description: `Send note: ${note}`,
    subject: { note },
    expiresAt: new Date(NOW.getTime() + 900_000),
    now: NOW,
  });
  return store.find(issued!.id);
}

/** Expects `text` to be `expected`, reporting a difference by length first (the texts are long). */
function expectWhole(text: unknown, expected: string): void {
  expect(typeof text === 'string' ? text.length : text).toBe(expected.length);
  expect(text === expected).toBe(true);
}

/** Expects `item` to hold `note` whole in every widened column. */
function expectItemHolds(item: ReviewItem | null, note: string): void {
  expect(item).not.toBeNull();
  expectWhole((item!.arguments as { note: string }).note, note);
  expectWhole((item!.requesterKey as { note: string }).note, note);
  expectWhole(item!.description, `Send note: ${note}`);
  expectWhole(item!.subject?.note, note);
}

for (const engine of databaseEngines()) {
  describe(`Review item and approval receipt texts past 64 KiB [${engine.name}]`, () => {
    // The attack on MySQL/MariaDB, where these columns were `text`; a control on SQLite and PostgreSQL.
    it.each(LONG_TEXTS)(
      'attack: a review item whose arguments, requester key, description and subject hold %s parks and reads back whole',
      async (_label, note) => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          expectItemHolds(await parkAndFind(dataSource, reviewDraft(note)), note);
        });
      },
    );

    it.each(LONG_TEXTS)(
      'attack: an approval receipt whose description and subject hold %s is issued and reads back whole',
      async (_label, note) => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const receipt = await issueAndFind(dataSource, note);

          expectWhole(receipt?.description, `Send note: ${note}`);
          expectWhole(receipt?.subject?.note, note);
        });
      },
    );

    it('control: upgrading from the previous migrations keeps the rows; down and up again; then long texts fit', async () => {
      await withDataSource(engine, PREVIOUS, async (dataSource) => {
        const migration = new WidenReviewAndReceiptTexts1797040196000();
        const short = reviewDraft('pay 😀 now');
        await new TypeOrmReviewItemStore(dataSource).park(short);

        await onOwnRunner(dataSource, (queryRunner) => migration.up(queryRunner));
        await onOwnRunner(dataSource, (queryRunner) => migration.down(queryRunner));
        await onOwnRunner(dataSource, (queryRunner) => migration.up(queryRunner));

        expectItemHolds(await new TypeOrmReviewItemStore(dataSource).find(short.id), 'pay 😀 now');
        const [, long] = LONG_TEXTS[1];
        expectItemHolds(await parkAndFind(dataSource, reviewDraft(long)), long);
      });
    });

    if (engine.name === 'mariadb')
      it('attack: down refuses while a value exceeds 64 KiB, even without strict mode, and cuts nothing', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const [, long] = LONG_TEXTS[0];
          const item = await parkAndFind(dataSource, reviewDraft(long));
          const migration = new WidenReviewAndReceiptTexts1797040196000();
          const reverted = onOwnRunner(dataSource, async (queryRunner) => {
            // Without STRICT_TRANS_TABLES, MariaDB cuts a value that no longer fits instead of failing.
            await queryRunner.query("SET SESSION sql_mode = ''");
            await migration.down(queryRunner);
          });

          await expect(reverted).rejects.toThrow(
            /verdict_review_items\.arguments holds a value of more than 65535 bytes/,
          );
          expectItemHolds(await new TypeOrmReviewItemStore(dataSource).find(item!.id), long);
        });
      });
  });
}

/** `table.column` and collation of every text column of Verdict's tables whose collation is binary (the id columns). */
async function exactColumns(dataSource: DataSource): Promise<string[]> {
  const rows = (await dataSource.query(
    "SELECT TABLE_NAME AS t, COLUMN_NAME AS c, COLLATION_NAME AS collation FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'verdict\\_%' AND COLLATION_NAME LIKE '%\\_bin' ORDER BY TABLE_NAME, COLUMN_NAME",
  )) as Array<{ t: string; c: string; collation: string }>;
  return rows.map((row) => `${row.t}.${row.c} ${row.collation}`);
}

/** `table.column charset` of every text column of Verdict's tables not in `utf8mb4`, and of every such table. */
async function notUnicode(dataSource: DataSource): Promise<string[]> {
  const columns = (await dataSource.query(
    "SELECT TABLE_NAME AS t, COLUMN_NAME AS c, CHARACTER_SET_NAME AS charset FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'verdict\\_%' AND CHARACTER_SET_NAME <> 'utf8mb4' ORDER BY TABLE_NAME, COLUMN_NAME",
  )) as Array<{ t: string; c: string; charset: string }>;
  const tables = (await dataSource.query(
    "SELECT TABLE_NAME AS t, TABLE_COLLATION AS collation FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'verdict\\_%' AND TABLE_COLLATION NOT LIKE 'utf8mb4\\_%' ORDER BY TABLE_NAME",
  )) as Array<{ t: string; collation: string }>;
  return [
    ...columns.map((row) => `${row.t}.${row.c} ${row.charset}`),
    ...tables.map((row) => `${row.t} ${row.collation}`),
  ];
}

/**
 * Runs `test` on a fresh MariaDB database created `latin1` (MariaDB's upstream default character set) with
 * `migrations` run, dropped afterwards.
 */
async function withLatin1Database(
  engine: DatabaseEngine,
  migrations: DataSourceOptions['migrations'],
  test: (dataSource: DataSource) => Promise<void>,
): Promise<void> {
  const url = new URL(engine.url!);
  const server = { type: 'mariadb' as const, url: url.href, timezone: 'Z', dateStrings: false };
  const name = `verdict_t_${randomBytes(6).toString('hex')}`;
  const admin = await new DataSource(server).initialize();
  try {
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET latin1`);
    url.pathname = `/${name}`;
    const dataSource = new DataSource({ ...server, url: url.href, entities: verdictEntities, migrations });
    try {
      await dataSource.initialize();
      await dataSource.runMigrations({ transaction: 'each' });
      await test(dataSource);
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    }
  } finally {
    await admin.destroy();
  }
}

/**
 * Gives `dataSource`'s database the schema a release before ADR 0196 created on a `latin1` database: every column of
 * Verdict's tables without its own collation (every one but the binary, no-pad id columns) in `latin1`, as the
 * tables' defaults.
 */
async function asCreatedBefore(dataSource: DataSource): Promise<void> {
  const columns = (await dataSource.query(
    "SELECT TABLE_NAME AS t, COLUMN_NAME AS c, COLUMN_TYPE AS type, IS_NULLABLE AS nullable, COLUMN_DEFAULT AS d FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'verdict\\_%' AND CHARACTER_SET_NAME = 'utf8mb4' AND COLLATION_NAME NOT LIKE '%\\_bin'",
  )) as Array<{ t: string; c: string; type: string; nullable: string; d: string | null }>;
  const tables = (await dataSource.query(
    "SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'verdict\\_%'",
  )) as Array<{ t: string }>;
  for (const { t: table } of tables) {
    const modified = columns
      .filter(({ t }) => t === table)
      .map(({ c, type, nullable, d }) => {
        const defaulted = d === null || d === 'NULL' ? '' : ` DEFAULT ${d}`;
        return `, MODIFY \`${c}\` ${type} CHARACTER SET latin1 ${nullable === 'YES' ? 'NULL' : 'NOT NULL'}${defaulted}`;
      });
    await dataSource.query(`ALTER TABLE \`${table}\` DEFAULT CHARACTER SET latin1${modified.join('')}`);
  }
}

/** `column charset` of each of `columns` of `table`. */
async function charsets(dataSource: DataSource, table: string, columns: readonly string[]): Promise<string[]> {
  const rows = (await dataSource.query(
    `SELECT COLUMN_NAME AS c, CHARACTER_SET_NAME AS charset FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME IN (${columns.map(() => '?').join(', ')}) ORDER BY COLUMN_NAME`,
    [table, ...columns],
  )) as Array<{ c: string; charset: string }>;
  return rows.map((row) => `${row.c} ${row.charset}`);
}

/** What docs/upgrading.md has an operator run to convert the rest of a `latin1` database: it returns the statements. */
const CONVERSION = `SELECT CONCAT('ALTER TABLE \`', t.TABLE_NAME, '\` DEFAULT CHARACTER SET utf8mb4',
  COALESCE(GROUP_CONCAT(CONCAT(', MODIFY \`', c.COLUMN_NAME, '\` ', c.COLUMN_TYPE, ' CHARACTER SET utf8mb4',
      IF(c.IS_NULLABLE = 'YES', ' NULL', ' NOT NULL'),
      IF(c.COLUMN_DEFAULT IS NULL OR c.COLUMN_DEFAULT = 'NULL', '', CONCAT(' DEFAULT ', c.COLUMN_DEFAULT)))
    ORDER BY c.ORDINAL_POSITION SEPARATOR ''), '')) AS statement
FROM information_schema.TABLES t
LEFT JOIN information_schema.COLUMNS c
  ON c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME AND c.CHARACTER_SET_NAME <> 'utf8mb4'
WHERE t.TABLE_SCHEMA = DATABASE() AND t.TABLE_NAME LIKE 'verdict\\_%'
  AND (t.TABLE_COLLATION NOT LIKE 'utf8mb4\\_%' OR c.COLUMN_NAME IS NOT NULL)
GROUP BY t.TABLE_NAME`;

// On a database whose default character set is latin1, Verdict's migrations created every column without an explicit
// collation latin1 (ADR 0196): an emoji, or any character outside latin1, then failed to be stored.
for (const engine of databaseEngines().filter(({ name }) => name === 'mariadb')) {
  describe(`A MariaDB database created latin1 [${engine.name}]`, () => {
    it('attack: migrated fresh, it stores emoji in the content store, a kill switch reason and a review item', async () => {
      await withLatin1Database(engine, verdictMigrations, async (dataSource) => {
        const text = 'Ticket 90 😀';
        const contents = new TypeOrmProvenanceContentStore(dataSource);
        const containment: Containment = {
          scope: 'tenant',
          subject: fingerprintString(`acme:${randomUUID()}`),
          reason: 'INC 😀',
          engagedBy: 'operator:7',
          operatorIdentity: null,
          engagedAt: NOW,
        };
        const containments = new TypeOrmContainmentStore(dataSource);

        await contents.keep([{ fingerprint: fingerprintString(text), text }], NOW);
        await containments.engage(containment);

        expect(await contents.text(fingerprintString(text))).toBe(text);
        expect((await containments.active()).find(({ subject }) => subject === containment.subject)?.reason).toBe(
          'INC 😀',
        );
        expectItemHolds(await parkAndFind(dataSource, reviewDraft('pay 😀 now')), 'pay 😀 now');
      });
    });

    it('attack: migrated fresh, no column and no table of Verdict is latin1', async () => {
      await withLatin1Database(engine, verdictMigrations, async (dataSource) => {
        expect(await notUnicode(dataSource)).toEqual([]);
      });
    });

    it('control: the id columns keep the binary, no-pad collation they have on a utf8mb4 database', async () => {
      let unicode: string[] = [];
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        unicode = await exactColumns(dataSource);
      });

      await withLatin1Database(engine, verdictMigrations, async (dataSource) => {
        const latin1 = await exactColumns(dataSource);

        expect(latin1).toEqual(unicode);
        expect(latin1).toContain('verdict_review_items.id utf8mb4_nopad_bin');
        expect(latin1).toContain('verdict_approval_receipts.id utf8mb4_nopad_bin');
        expect(latin1.every((column) => column.endsWith(' utf8mb4_nopad_bin'))).toBe(true);
      });
    });

    it('control: upgrading a latin1 database converts the widened columns, keeps rows and id collations', async () => {
      await withLatin1Database(engine, PREVIOUS.migrations, async (dataSource) => {
        await asCreatedBefore(dataSource);
        const ids = await exactColumns(dataSource);
        const old = reviewDraft('café');
        await new TypeOrmReviewItemStore(dataSource).park(old);
        await expect(parkAndFind(dataSource, reviewDraft('pay 😀 now'))).rejects.toThrow(/Incorrect string value/);

        await onOwnRunner(dataSource, (queryRunner) => new WidenReviewAndReceiptTexts1797040196000().up(queryRunner));

        expectItemHolds(await new TypeOrmReviewItemStore(dataSource).find(old.id), 'café');
        expectItemHolds(await parkAndFind(dataSource, reviewDraft('pay 😀 now')), 'pay 😀 now');
        expect(await exactColumns(dataSource)).toEqual(ids);
        expect(
          await charsets(dataSource, 'verdict_review_items', [
            'arguments',
            'requester_key',
            'description',
            'subject',
            'reason',
          ]),
        ).toEqual([
          'arguments utf8mb4',
          'description utf8mb4',
          'reason latin1',
          'requester_key utf8mb4',
          'subject utf8mb4',
        ]);
        expect(await charsets(dataSource, 'verdict_approval_receipts', ['description', 'subject'])).toEqual([
          'description utf8mb4',
          'subject utf8mb4',
        ]);
      });
    });

    it("control: docs/upgrading.md's conversion leaves no latin1 column and keeps rows and id collations", async () => {
      await withLatin1Database(engine, PREVIOUS.migrations, async (dataSource) => {
        await asCreatedBefore(dataSource);
        const ids = await exactColumns(dataSource);
        const old = reviewDraft('café');
        await new TypeOrmReviewItemStore(dataSource).park(old);
        await onOwnRunner(dataSource, (queryRunner) => new WidenReviewAndReceiptTexts1797040196000().up(queryRunner));
        expect((await notUnicode(dataSource)).length).toBeGreaterThan(20);

        await onOwnRunner(dataSource, async (queryRunner) => {
          await queryRunner.query('SET SESSION group_concat_max_len = 1048576');
          const statements = (await queryRunner.query(CONVERSION)) as Array<{ statement: string }>;
          expect(statements.length).toBeGreaterThan(5);
          for (const { statement } of statements) await queryRunner.query(statement);
        });

        expect(await notUnicode(dataSource)).toEqual([]);
        expect(await exactColumns(dataSource)).toEqual(ids);
        expectItemHolds(await new TypeOrmReviewItemStore(dataSource).find(old.id), 'café');
        const containment: Containment = {
          scope: 'tenant',
          subject: fingerprintString(`acme:${randomUUID()}`),
          reason: 'INC 😀',
          engagedBy: 'operator:7',
          operatorIdentity: null,
          engagedAt: NOW,
        };
        await new TypeOrmContainmentStore(dataSource).engage(containment);
        expect((await new TypeOrmContainmentStore(dataSource).active()).map(({ reason }) => reason)).toEqual([
          'INC 😀',
        ]);
      });
    });
  });
}
