import { randomUUID } from 'node:crypto';
import type { DataSource, EntityMetadata } from 'typeorm';
import { type ChainLink, EvidenceKind, GENESIS_HEAD, linkAfter } from '../evidence/chain-link.js';
import { ChainVerifier, type ChainVerification } from '../evidence/chain-verification.js';
import {
  canSign,
  type CheckpointKey,
  CheckpointPurpose,
  type EvidenceCheckpoint,
  signCheckpoint,
} from '../evidence/evidence-checkpoint.js';
import type { EvidenceChain, PruneReport, SealReport } from '../evidence/evidence-chain.interface.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { OuterTransactionError } from '../errors/outer-transaction.error.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { DecisionRecordEntity } from './decision-record.entity.js';
import { withNamedLock } from './named-lock.js';
import { ReleaseRecordEntity } from './release-record.entity.js';
import { StoreConnection } from './store-connection.js';

/** Records chained per seal batch; a stream with more is sealed in several batches under one lock. */
const SEAL_BATCH = 500;
/** Chained records read per page while verifying. */
const VERIFY_PAGE = 1000;
const CHECKPOINTS = 'verdict_evidence_checkpoints';
const TABLES = {
  [EvidenceKind.Decision]: { table: 'verdict_decision_records', entity: DecisionRecordEntity },
  [EvidenceKind.Release]: { table: 'verdict_release_records', entity: ReleaseRecordEntity },
} as const;

type Row = Record<string, unknown>;
/** Runs one statement inside the stream's lock. */
type Query = (sql: string, parameters: readonly unknown[]) => Promise<Row[]> | Row[];

/** better-sqlite3's native handle, as far as sealing uses it. */
interface NativeSqlite {
  readonly inTransaction: boolean;
  prepare(sql: string): {
    reader: boolean;
    all(...parameters: unknown[]): Row[];
    run(...parameters: unknown[]): unknown;
  };
}

/**
 * The hash chains of `verdict_decision_records` and `verdict_release_records` (ADR 0021): records are
 * appended unchained by plain INSERTs, and {@link seal} links them in batches, one stream at a time under
 * that stream's lock (PostgreSQL: an advisory transaction lock; MySQL/MariaDB: `GET_LOCK`; SQLite:
 * `BEGIN IMMEDIATE` on the file), so across processes and nodes each stream stays one chain: the
 * sealer reads the head and assigns the next sequences while no other sealer can, and the unique
 * (`stream`, `chain_sequence`) index refuses a fork even if a lock were bypassed.
 */
export class TypeOrmEvidenceChain implements EvidenceChain {
  private readonly connection: StoreConnection;

  constructor(
    private readonly dataSource: DataSource,
    private readonly key?: CheckpointKey,
  ) {
    this.connection = new StoreConnection(dataSource, 'TypeOrmEvidenceRecorder');
  }

  async seal(): Promise<SealReport> {
    let sealed = 0;
    let checkpoints = 0;
    for (const kind of Object.values(EvidenceKind)) {
      const rows = await this.dataSource.query(
        `SELECT DISTINCT stream FROM ${TABLES[kind].table} WHERE chain_sequence IS NULL`,
      );
      for (const { stream } of rows as Array<{ stream: string }>) {
        const report = await this.sealStream(kind, stream);
        sealed += report.sealed;
        checkpoints += report.checkpoints;
      }
    }
    return { sealed, checkpoints };
  }

  /** Chains the unchained records of one stream (what a recorder calls after its writes). */
  async sealStream(kind: EvidenceKind, stream: string): Promise<SealReport> {
    let sealed = 0;
    let checkpoints = 0;
    for (;;) {
      const batch = await this.locked(kind, stream, (query) => this.sealBatch(kind, stream, query));
      sealed += batch.sealed;
      checkpoints += batch.checkpoints;
      if (batch.sealed < SEAL_BATCH) return { sealed, checkpoints };
    }
  }

  async verify(): Promise<ChainVerification[]> {
    const verdicts: ChainVerification[] = [];
    for (const kind of Object.values(EvidenceKind)) {
      for (const stream of await this.streams(kind)) verdicts.push(await this.verifyStream(kind, stream));
    }
    return verdicts;
  }

  async prune(before: Date): Promise<PruneReport> {
    const key = this.key;
    if (key === undefined || !canSign(key))
      throw new VerdictConfigurationError(
        'Pruning evidence leaves a signed checkpoint: give the recorder a checkpointKey that can sign (an HMAC secret or an Ed25519 private key).',
      );
    await this.seal();
    let pruned = 0;
    let anchored = 0;
    for (const kind of Object.values(EvidenceKind)) {
      for (const stream of await this.streams(kind)) {
        const removed = await this.locked(kind, stream, (query) => this.pruneStream(kind, stream, before, key, query));
        pruned += removed;
        if (removed > 0) anchored++;
      }
    }
    return { pruned, anchored };
  }

  /** One batch, inside the stream's lock: read the head, link the oldest unchained records after it. */
  private sealBatch(kind: EvidenceKind, stream: string, query: Query): Sync<SealReport> {
    const { table } = TABLES[kind];
    const p = (index: number) => this.connection.param(index);
    return then(
      query(
        `SELECT chain_sequence, hash FROM ${table} WHERE stream = ${p(1)} AND chain_sequence IS NOT NULL ORDER BY chain_sequence DESC LIMIT 1`,
        [stream],
      ),
      (heads) =>
        then(
          query(
            `SELECT sequence, hash FROM ${CHECKPOINTS} WHERE kind = ${p(1)} AND stream = ${p(2)} AND purpose = ${p(3)} ORDER BY sequence DESC LIMIT 1`,
            [kind, stream, CheckpointPurpose.Prune],
          ),
          (anchors) =>
            then(
              query(
                `SELECT * FROM ${table} WHERE stream = ${p(1)} AND chain_sequence IS NULL ORDER BY recorded_at, id LIMIT ${SEAL_BATCH}`,
                [stream],
              ),
              (rows) => {
                if (rows.length === 0) return { sealed: 0, checkpoints: 0 };
                const head = laterHead(
                  heads[0] && { sequence: Number(heads[0].chain_sequence), hash: String(heads[0].hash) },
                  anchors[0] && { sequence: Number(anchors[0].sequence), hash: String(anchors[0].hash) },
                );
                const links = linkAfter(
                  kind,
                  stream,
                  head,
                  rows.map((row) => this.hydrate(kind, row)),
                );
                const ids = rows.map((row) => row.id);
                const cast =
                  this.connection.dialect === 'postgres'
                    ? 'BIGINT'
                    : this.connection.dialect === 'mysql'
                      ? 'SIGNED'
                      : 'INTEGER';
                let index = 0;
                const parameters: unknown[] = [];
                const cases = (value: (link: ChainLink) => unknown, wrap = (param: string) => param) =>
                  `CASE id ${links
                    .map((link, i) => {
                      parameters.push(ids[i], value(link));
                      index += 2;
                      return `WHEN ${p(index - 1)} THEN ${wrap(p(index))}`;
                    })
                    .join(' ')} END`;
                const sequences = cases(
                  (link) => link.sequence,
                  (param) => `CAST(${param} AS ${cast})`,
                );
                const previous = cases((link) => link.previousHash);
                const hashes = cases((link) => link.hash);
                const where = ids
                  .map((id) => {
                    parameters.push(id);
                    index++;
                    return p(index);
                  })
                  .join(', ');
                const update = `UPDATE ${table} SET chain_sequence = ${sequences}, previous_hash = ${previous}, hash = ${hashes} WHERE chain_sequence IS NULL AND id IN (${where})`;
                return then(query(update, parameters), () => {
                  const last = links[links.length - 1]!;
                  if (this.key === undefined || !canSign(this.key)) return { sealed: links.length, checkpoints: 0 };
                  return then(this.insertCheckpoint(query, this.key, kind, last, CheckpointPurpose.Seal), () => ({
                    sealed: links.length,
                    checkpoints: 1,
                  }));
                });
              },
            ),
        ),
    );
  }

  private pruneStream(
    kind: EvidenceKind,
    stream: string,
    before: Date,
    key: CheckpointKey,
    query: Query,
  ): Sync<number> {
    const { table } = TABLES[kind];
    const p = (index: number) => this.connection.param(index);
    const instant = this.connection.instant(before);
    // Prune up to the record before the first one recorded at or after `before`: every newer record stays.
    return then(
      query(
        `SELECT MIN(chain_sequence) AS first_kept FROM ${table} WHERE stream = ${p(1)} AND chain_sequence IS NOT NULL AND recorded_at >= ${p(2)}`,
        [stream, instant],
      ),
      (kept) =>
        then(
          query(
            `SELECT MAX(chain_sequence) AS last FROM ${table} WHERE stream = ${p(1)} AND chain_sequence IS NOT NULL`,
            [stream],
          ),
          (heads) => {
            const firstKept = kept[0]?.first_kept;
            const last = heads[0]?.last;
            if (last === null || last === undefined) return 0;
            const through = firstKept === null || firstKept === undefined ? Number(last) : Number(firstKept) - 1;
            return then(
              query(`SELECT chain_sequence, hash FROM ${table} WHERE stream = ${p(1)} AND chain_sequence = ${p(2)}`, [
                stream,
                through,
              ]),
              (anchors) => {
                const anchor = anchors[0];
                if (anchor === undefined) return 0;
                const link = { sequence: Number(anchor.chain_sequence), hash: String(anchor.hash), stream };
                // The anchor is written first: a prune cut short leaves records the anchor already vouches for.
                return then(
                  query(
                    `SELECT COUNT(*) AS doomed FROM ${table} WHERE stream = ${p(1)} AND chain_sequence <= ${p(2)}`,
                    [stream, through],
                  ),
                  (counted) =>
                    then(this.insertCheckpoint(query, key, kind, link, CheckpointPurpose.Prune), () =>
                      then(
                        query(`DELETE FROM ${table} WHERE stream = ${p(1)} AND chain_sequence <= ${p(2)}`, [
                          stream,
                          through,
                        ]),
                        () =>
                          then(
                            query(
                              `DELETE FROM ${CHECKPOINTS} WHERE kind = ${p(1)} AND stream = ${p(2)} AND sequence < ${p(3)}`,
                              [kind, stream, through],
                            ),
                            () => Number(counted[0]?.doomed ?? 0),
                          ),
                      ),
                    ),
                );
              },
            );
          },
        ),
    );
  }

  private insertCheckpoint(
    query: Query,
    key: CheckpointKey,
    kind: EvidenceKind,
    link: Pick<ChainLink, 'stream' | 'sequence' | 'hash'>,
    purpose: CheckpointPurpose,
  ): Sync<Row[]> {
    const signed = signCheckpoint(key, {
      kind,
      stream: link.stream,
      sequence: link.sequence,
      hash: link.hash,
      purpose,
    });
    const p = (index: number) => this.connection.param(index);
    return query(
      `INSERT INTO ${CHECKPOINTS} (id, kind, stream, sequence, hash, purpose, algorithm, key_id, signature, created_at) VALUES (${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(p).join(', ')})`,
      [
        randomUUID(),
        kind,
        link.stream,
        link.sequence,
        link.hash,
        purpose,
        signed.algorithm,
        signed.keyId,
        signed.signature,
        this.connection.instant(new Date()),
      ],
    );
  }

  private async verifyStream(kind: EvidenceKind, stream: string): Promise<ChainVerification> {
    const { table } = TABLES[kind];
    const p = (index: number) => this.connection.param(index);
    const checkpoints = (
      await this.dataSource.query(
        `SELECT * FROM ${CHECKPOINTS} WHERE kind = ${p(1)} AND stream = ${p(2)} ORDER BY sequence`,
        [kind, stream],
      )
    ).map(checkpointOf);
    const verifier = new ChainVerifier(kind, stream, checkpoints, this.key);
    let after = 0;
    for (;;) {
      const rows: Row[] = await this.dataSource.query(
        `SELECT * FROM ${table} WHERE stream = ${p(1)} AND chain_sequence > ${p(2)} ORDER BY chain_sequence LIMIT ${VERIFY_PAGE}`,
        [stream, after],
      );
      let going = true;
      for (const row of rows) {
        going = verifier.accept(this.hydrate(kind, row), linkOf(row));
        if (!going) break;
      }
      if (!going || rows.length < VERIFY_PAGE) break;
      after = Number(rows[rows.length - 1]!.chain_sequence);
    }
    const [{ unsealed }] = await this.dataSource.query(
      `SELECT COUNT(*) AS unsealed FROM ${table} WHERE stream = ${p(1)} AND chain_sequence IS NULL`,
      [stream],
    );
    return verifier.finish(Number(unsealed));
  }

  private async streams(kind: EvidenceKind): Promise<string[]> {
    const p = (index: number) => this.connection.param(index);
    const rows: Array<{ stream: string }> = [
      ...(await this.dataSource.query(`SELECT DISTINCT stream FROM ${TABLES[kind].table}`)),
      ...(await this.dataSource.query(`SELECT DISTINCT stream FROM ${CHECKPOINTS} WHERE kind = ${p(1)}`, [kind])),
    ];
    return [...new Set(rows.map((row) => row.stream))].sort();
  }

  /** The record a row holds, converted as TypeORM reads the entity (the same bytes hash the same everywhere). */
  private hydrate(kind: EvidenceKind, row: Row): Record<string, unknown> {
    const metadata: EntityMetadata = this.dataSource.getMetadata(TABLES[kind].entity);
    const record: Record<string, unknown> = {};
    for (const column of metadata.columns)
      record[column.propertyName] = this.dataSource.driver.prepareHydratedValue(row[column.databaseName], column);
    return record;
  }

  /** Runs `work` holding the stream's lock, on every engine; SQLite's runs synchronously inside BEGIN IMMEDIATE. */
  private async locked<T>(kind: EvidenceKind, stream: string, work: (query: Query) => Sync<T>): Promise<T> {
    const { dialect } = this.connection;
    if (dialect !== 'sqlite')
      return withNamedLock(
        this.dataSource,
        dialect,
        fingerprintString(`verdict-evidence-chain:${kind}:${stream}`),
        async (query) => work(query),
      );
    const database = (this.dataSource.driver as unknown as { databaseConnection?: NativeSqlite }).databaseConnection;
    if (!this.dataSource.isInitialized || database === undefined)
      throw new Error('Sealing evidence needs an initialized DataSource.');
    if (database.inTransaction) throw new OuterTransactionError('evidence chain');
    const query: Query = (sql, parameters) => {
      const statement = database.prepare(sql);
      if (statement.reader) return statement.all(...parameters);
      statement.run(...parameters);
      return [];
    };
    database.prepare('BEGIN IMMEDIATE').run();
    try {
      const result = work(query);
      if (result instanceof Promise) throw new Error('SQLite sealing must run synchronously.');
      database.prepare('COMMIT').run();
      return result;
    } catch (error) {
      if (database.inTransaction) database.prepare('ROLLBACK').run();
      throw error;
    }
  }
}

/** A value now (SQLite's synchronous statements) or later (the server engines'). */
type Sync<T> = T | Promise<T>;

/** `next(value)` without turning a synchronous value into a promise, so SQLite's locked work stays in one turn. */
function then<T, U>(value: Sync<T>, next: (value: T) => Sync<U>): Sync<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

function laterHead(
  head: Pick<ChainLink, 'sequence' | 'hash'> | undefined,
  anchor: Pick<ChainLink, 'sequence' | 'hash'> | undefined,
): Pick<ChainLink, 'sequence' | 'hash'> {
  const candidates = [head, anchor].filter((candidate) => candidate !== undefined);
  return candidates.sort((a, b) => b.sequence - a.sequence)[0] ?? GENESIS_HEAD;
}

function linkOf(row: Row): ChainLink {
  return {
    stream: String(row.stream),
    sequence: Number(row.chain_sequence),
    previousHash: String(row.previous_hash),
    hash: String(row.hash),
  };
}

function checkpointOf(row: Row): EvidenceCheckpoint {
  return {
    id: String(row.id),
    kind: row.kind as EvidenceKind,
    stream: String(row.stream),
    sequence: Number(row.sequence),
    hash: String(row.hash),
    purpose: row.purpose as CheckpointPurpose,
    algorithm: row.algorithm as EvidenceCheckpoint['algorithm'],
    keyId: String(row.key_id),
    signature: String(row.signature),
    createdAt: instantOf(row.created_at),
  };
}

/** A UTC instant as a driver returns it: a Date, or SQLite's 'YYYY-MM-DD HH:MM:SS.SSS' UTC text. */
function instantOf(value: unknown): Date {
  if (value instanceof Date) return value;
  const text = String(value);
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(' ', 'T')}Z`);
}
