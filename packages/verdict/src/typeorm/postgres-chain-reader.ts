import type { DataSource, QueryRunner } from 'typeorm';
import { type ChainLink, chainHashOfCanonical, type EvidenceKind, isPlainLink } from '../evidence/chain-link.js';
import { instantMs } from '../evidence/chain-verification.js';
import { isInstantColumn } from './engine-typed-entity.js';
import { PENDING_EVIDENCE } from './migrations/1797012000000-queue-pending-evidence-in-a-table.js';

/** How one stored column is written in a record's canonical JSON; `general`: a type this reader leaves to hydration. */
type Form = 'string' | 'number' | 'boolean' | 'instant' | 'general';

/** One link of a stream with what `verify` needs of its record, read by {@link PostgresChainReader}. */
export interface ReadLink {
  readonly link: ChainLink;
  /** The linked record's id, as the link names it. */
  readonly recordId: string;
  /**
   * The record as the verifier takes it: its chain hash at this link and when it was recorded; `null` when the
   * record is gone; `'stored-form'` when its stored form is one this reader does not hash (an instant outside
   * years 1–9999, a link a sealer would not write): the caller hashes the record as TypeORM hydrates it.
   */
  readonly record: { hash(): string; recordedAt(): number } | null | 'stored-form';
}

/** The subset of `pg`'s client a reader uses: queries in rows-as-arrays mode, every value as its text. */
interface PgClient {
  query(text: string): Promise<unknown>;
  query(config: {
    text: string;
    values: unknown[];
    rowMode: 'array';
    types: { getTypeParser(): (text: string) => string };
  }): Promise<{ rows: Array<Array<string | null>>; fields: Array<{ dataTypeID: number }> }>;
}

/** PostgreSQL's type ids `pg` hands over as they are sent (text, varchar, bpchar): JSON strings. */
const PG_STRING_TYPES = new Set([25, 1043, 1042]);
/** Type ids `pg` parses into a JSON number (int2, int4) or a boolean; any other type takes the general path. */
const PG_NUMBER_TYPES = new Set([21, 23]);
const PG_BOOLEAN = 16;
/** Every value as the text PostgreSQL sent: no Date, no number parsed (the canonical text is built from it). */
const AS_TEXT = { getTypeParser: () => (text: string) => text };
/** An ISO-8601 UTC instant as `toISOString` writes it for years 1–9999. */
const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * Reads a stream's links with their records from PostgreSQL for `verify` (issue 22, target 5), page by page
 * (keyset by sequence; each link's record looked up by its primary key), the next page requested before the
 * current one is hashed, so the database reads while this process hashes. Each record's canonical JSON is
 * built from the columns' text as PostgreSQL sends it (instants formatted as ISO-8601 UTC text by the query),
 * the same text `chainHash` builds from the record TypeORM hydrates, without parsing a Date or building a row
 * object per record. Columns are those of the kind's entity; a record whose stored form this does not cover is
 * handed back for the caller to hash the general way.
 */
export class PostgresChainReader {
  private readonly select: string;
  /** Per selected record column, in canonical (sorted) key order: its `"key":` prefix and its form. */
  private readonly columns: ReadonlyArray<{ readonly prefix: string; readonly form: Form }>;
  /** Position of `recordedAt` among the record columns. */
  private readonly recordedAt: number;
  /** Position of `stream` among the record columns. */
  private readonly stream: number;
  /** The stream's records (`$1`), counted from its index. */
  private readonly countRecords: string;
  /** The records of the stream (`$2`) linked after sequence `$3` of its chain (of kind `$1`). */
  private readonly countLinkedAfter: string;
  /** The stream's (`$2`) records of kind `$1` its seal will link: queued under the stream, no link of it naming them. */
  private readonly countQueued: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly kind: EvidenceKind,
    private readonly table: string,
    entityColumns: ReadonlyArray<{ propertyName: string; databaseName: string; type: unknown }>,
    private readonly pageSize: number,
  ) {
    const sorted = [...entityColumns].sort((a, b) => (a.propertyName < b.propertyName ? -1 : 1));
    const q = (name: string) => `r."${name.replace(/"/g, '""')}"`;
    this.columns = sorted.map((column) => ({
      prefix: `${JSON.stringify(column.propertyName)}:`,
      form: isInstantColumn(column) ? 'instant' : 'string',
    }));
    this.recordedAt = sorted.findIndex((column) => column.propertyName === 'recordedAt');
    this.stream = sorted.findIndex((column) => column.propertyName === 'stream');
    this.countRecords = `SELECT COUNT(*) FROM ${table} WHERE stream = $1`;
    this.countLinkedAfter = `SELECT COUNT(*) FROM verdict_evidence_links l JOIN ${table} r ON r.id = l.record_id WHERE l.kind = $1 AND l.stream = $2 AND l.sequence > $3 AND r.stream = $2`;
    // Read from the queue's key (`kind`, `stream`, …), so it costs what the queue holds, not what the stream does. A
    // queue row under another time than its record's is still linked by the seal (it queues the record again first).
    this.countQueued = `SELECT COUNT(DISTINCT p.record_id) FROM ${PENDING_EVIDENCE} p WHERE p.kind = $1 AND p.stream = $2 AND EXISTS (SELECT 1 FROM ${table} r WHERE r.id = p.record_id AND r.stream = $2) AND NOT EXISTS (SELECT 1 FROM verdict_evidence_links l WHERE l.kind = $1 AND l.record_id = p.record_id AND l.stream = $2)`;
    // An instant is sent as toISOString's text for years 1-9999; any other instant as '' (the general path).
    const expressions = sorted.map((column) =>
      isInstantColumn(column)
        ? `CASE WHEN ${q(column.databaseName)} IS NULL THEN NULL WHEN ${q(column.databaseName)} >= timestamptz '0001-01-01 00:00:00+00' AND ${q(column.databaseName)} < timestamptz '10000-01-01 00:00:00+00' THEN to_char(${q(column.databaseName)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') ELSE '' END`
        : q(column.databaseName),
    );
    this.select = `SELECT l.sequence, l.previous_hash, l.hash, l.record_id, r.id IS NOT NULL, ${expressions.join(', ')} FROM (SELECT sequence, previous_hash, hash, record_id FROM verdict_evidence_links WHERE kind = $1 AND stream = $2 AND sequence > $3 ORDER BY sequence LIMIT ${pageSize}) l LEFT JOIN LATERAL (SELECT * FROM ${table} WHERE id = l.record_id LIMIT 1) r ON true ORDER BY l.sequence`;
  }

  /**
   * Feeds every link of `stream`, in sequence order, to `accept` until it answers `false`, a page at a time, one
   * page read ahead (`accept` answers a promise only for a record it hashes the general way), and answers how many
   * of the stream's records no link of the stream names (ADR 0110), and how many of those wait in the queue
   * (`verdict_evidence_pending`) for the stream's seal (ADR 0163). Everything is read in one snapshot (a read-only
   * repeatable-read transaction): the stream's records counted from their index, less those its links found (a
   * record is found once at most: a record id is linked once per kind), less those linked after the link that stopped
   * `accept`; the queued ones counted from the queue.
   */
  async read(
    stream: string,
    accept: (read: ReadLink) => boolean | Promise<boolean>,
  ): Promise<{ unsealed: number; queued: number }> {
    const runner: QueryRunner = this.dataSource.createQueryRunner('master');
    let ahead: Promise<Page> | null = null;
    let open = false;
    try {
      const client = (await runner.connect()) as PgClient;
      const rows = (text: string, values: unknown[]): Promise<Page> =>
        client.query({ text, values, rowMode: 'array', types: AS_TEXT });
      const fetch = (after: number): Promise<Page> => rows(this.select, [this.kind, stream, after]);
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      open = true;
      const records = rows(this.countRecords, [stream]);
      records.catch(() => undefined);
      const queued = rows(this.countQueued, [this.kind, stream]);
      queued.catch(() => undefined);
      let linked = 0;
      let last = 0;
      let next = fetch(0);
      ahead = next;
      reading: for (;;) {
        const page = await next;
        ahead = null;
        const full = page.rows.length === this.pageSize;
        if (full) ahead = next = fetch(Number(page.rows[page.rows.length - 1]![0]));
        const forms = this.formsOf(page);
        for (const row of page.rows) {
          last = Number(row[0]);
          if (row[4] === 't' && row[this.stream + RECORD_OFFSET] === stream) linked += 1;
          const going = accept(this.readLink(stream, row, forms));
          if (!(going instanceof Promise ? await going : going)) {
            if (ahead !== null) await ahead.catch(() => undefined);
            ahead = null;
            linked += Number((await rows(this.countLinkedAfter, [this.kind, stream, last])).rows[0]![0]);
            break reading;
          }
        }
        if (!full) break;
      }
      const unsealed = Number((await records).rows[0]![0]) - linked;
      const waiting = Number((await queued).rows[0]![0]);
      await client.query('COMMIT');
      open = false;
      return { unsealed, queued: waiting };
    } finally {
      // A page read ahead and not wanted (a failure before it): let it finish before the connection goes back.
      if (ahead !== null) await ahead.catch(() => undefined);
      if (open) await runner.query('ROLLBACK').catch(() => undefined);
      await runner.release();
    }
  }

  /** Each record column's form, from the types PostgreSQL reports (an int4 is a JSON number, a bool a boolean). */
  private formsOf(page: Page): Form[] {
    return this.columns.map(({ form }, i) => {
      if (form === 'instant') return form;
      const type = page.fields[i + RECORD_OFFSET]!.dataTypeID;
      if (PG_STRING_TYPES.has(type)) return 'string';
      return PG_NUMBER_TYPES.has(type) ? 'number' : type === PG_BOOLEAN ? 'boolean' : 'general';
    });
  }

  private readLink(stream: string, row: Array<string | null>, forms: readonly Form[]): ReadLink {
    const link: ChainLink = { stream, sequence: Number(row[0]), previousHash: String(row[1]), hash: String(row[2]) };
    const recordId = String(row[3]);
    if (row[4] !== 't') return { link, recordId, record: null };
    if (!isPlainLink(link)) return { link, recordId, record: 'stored-form' };
    let text = '';
    for (let i = 0; i < forms.length; i++) {
      const value = row[i + RECORD_OFFSET]!;
      const form = forms[i]!;
      let json: string;
      if (value === null) json = 'null';
      else if (form === 'string') json = JSON.stringify(value);
      else if (form === 'number') json = value;
      else if (form === 'boolean') json = value === 't' ? 'true' : 'false';
      else if (form === 'instant' && ISO_INSTANT.test(value)) json = `"${value}"`;
      else return { link, recordId, record: 'stored-form' };
      text += `,${this.columns[i]!.prefix}${json}`;
    }
    const canonical = `{${text.slice(1)}}`;
    const recordedAt = row[this.recordedAt + RECORD_OFFSET];
    return {
      link,
      recordId,
      record: {
        hash: () => chainHashOfCanonical(this.kind, canonical, link),
        recordedAt: () => instantMs(recordedAt === null ? Number.NaN : Date.parse(recordedAt!)),
      },
    };
  }
}

/** Where the record's columns start in a row: after the link's sequence, previous hash, hash, record id and "found". */
const RECORD_OFFSET = 5;

type Page = Awaited<ReturnType<PgClient['query']>>;
