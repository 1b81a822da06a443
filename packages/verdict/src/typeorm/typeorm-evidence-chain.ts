import { setImmediate } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import { type ChainLink, EvidenceKind, GENESIS_HASH, GENESIS_HEAD, linkAfter } from '../evidence/chain-link.js';
import {
  ChainProblem,
  ChainVerifier,
  type ChainVerification,
  LAST_SEAL_GRACE,
} from '../evidence/chain-verification.js';
import {
  canSign,
  type CheckpointKey,
  CheckpointPurpose,
  checkpointHash,
  type EvidenceCheckpoint,
  signCheckpoint,
} from '../evidence/evidence-checkpoint.js';
import {
  type ChainVerifyOptions,
  type EvidenceChain,
  type PruneReport,
  type SealReport,
  witnessOf,
} from '../evidence/evidence-chain.interface.js';
import { checkedPruneCutoff } from '../evidence/evidence-filter.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { OuterTransactionError } from '../errors/outer-transaction.error.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { DecisionRecordEntity } from './decision-record.entity.js';
import { withNamedLock } from './named-lock.js';
import { EvidenceChainBrokenError } from '../evidence/evidence-chain-broken.error.js';
import { PENDING_EVIDENCE } from './migrations/1797012000000-queue-pending-evidence-in-a-table.js';
import { PostgresChainReader } from './postgres-chain-reader.js';
import { ReleaseRecordEntity } from './release-record.entity.js';
import { StoreConnection } from './store-connection.js';
import { evidenceId } from '../evidence/evidence-id.js';

/** Records linked per statement, each batch with its checkpoint; a longer list is linked in several batches. */
const SEAL_BATCH = LAST_SEAL_GRACE.links;
/** Records a seal hashes between two turns of the event loop (ADR 0142). */
const HASH_CHUNK = 32;
/** Links read per page while verifying (keyset pagination by sequence). */
const VERIFY_PAGE = 5000;
const LINKS = 'verdict_evidence_links';
const CHECKPOINTS = 'verdict_evidence_checkpoints';
const TABLES = {
  [EvidenceKind.Decision]: {
    table: 'verdict_decision_records',
    entity: DecisionRecordEntity,
    pendingIndex: 'idx_verdict_decision_records_link_pending',
  },
  [EvidenceKind.Release]: {
    table: 'verdict_release_records',
    entity: ReleaseRecordEntity,
    pendingIndex: 'idx_verdict_release_records_link_pending',
  },
} as const;

type Row = Record<string, unknown>;
/** A record as written: what its link hashes. */
type Linkable = { readonly id: string };
/** Runs one statement inside the stream's lock: synchronously on SQLite, asynchronously elsewhere. */
type Query = (sql: string, parameters: readonly unknown[]) => Sync<Row[]>;

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
 * The hash chains of Verdict's decision and release records (ADR 0021). Records are appended unchained
 * by plain INSERTs; linking them writes one narrow row per record to `verdict_evidence_links` (stream,
 * sequence, record id, previous hash, hash), a batch per statement, under the stream's lock
 * (PostgreSQL: an advisory transaction lock; MySQL/MariaDB: `GET_LOCK`; SQLite: `BEGIN IMMEDIATE` on the
 * file). Across processes and nodes a stream stays one chain: the head is read and the next sequences
 * assigned while no other sealer of that stream can, and the primary key (`kind`, `stream`, `sequence`)
 * refuses a fork even if a lock were bypassed. Records still to link wait in a queue: marked on their row (SQLite,
 * MySQL/MariaDB, ADR 0062), in `verdict_evidence_pending` on PostgreSQL (ADR 0135). Checkpoints chain to each other under the same lock
 * (ADR 0034): each names the next checkpoint sequence and its predecessor's hash, and the unique
 * (`kind`, `stream`, `checkpoint_sequence`) refuses a forked checkpoint chain.
 */
export class TypeOrmEvidenceChain implements EvidenceChain {
  private readonly connection: StoreConnection;
  /** The entity columns of each kind's records, looked up once. */
  private readonly columns: Partial<Record<EvidenceKind, ReturnType<DataSource['getMetadata']>['columns']>> = {};
  /** PostgreSQL's verify readers, one per kind, built once. */
  private readonly readers: Partial<Record<EvidenceKind, PostgresChainReader>> = {};

  constructor(
    private readonly dataSource: DataSource,
    private readonly key?: CheckpointKey,
  ) {
    this.connection = new StoreConnection(dataSource, 'TypeOrmEvidenceRecorder');
  }

  /**
   * Links `records`, just written to `stream` (in write order), after the stream's head: the recorder's background seal.
   * @throws EvidenceChainBrokenError when the links no checkpoint pins before them do not verify: nothing is linked.
   */
  async link(kind: EvidenceKind, stream: string, records: readonly Linkable[]): Promise<SealReport> {
    let sealed = 0;
    let checkpoints = 0;
    for (let start = 0; start < records.length; start += SEAL_BATCH) {
      const batch = records.slice(start, start + SEAL_BATCH);
      const report = await this.locked(kind, stream, (query) => this.linkBatch(kind, stream, batch, query));
      sealed += report.sealed;
      checkpoints += report.checkpoints;
    }
    return { sealed, checkpoints };
  }

  /**
   * Links every record no seal linked yet (a process that stopped before its seal, records from before the
   * chains, records a background seal left): the streams with records queued, then every stream's
   * head is pinned. Each batch reads its records from the queue (ADR 0062, ADR 0135), so its cost does not grow
   * with the records already linked. A checkpoint is signed over links no checkpoint pins only once they verify
   * ({@link verifyUnpinned}).
   * @throws EvidenceChainBrokenError naming the streams whose unpinned links did not verify, once the others are sealed.
   */
  seal(): Promise<SealReport> {
    return this.sealAll();
  }

  /**
   * {@link seal}; with `verified` (a prune's verification, by {@link streamKey}), a head no checkpoint pins is signed
   * only if it is still the head that verification found intact: a prune signs nothing it did not verify. Without it,
   * the links no checkpoint pins are verified before a checkpoint is signed over them ({@link verifyUnpinned}); a
   * stream whose unpinned links do not verify is left as it is and the others are sealed, then
   * {@link EvidenceChainBrokenError} names every stream left.
   */
  private async sealAll(verified?: ReadonlyMap<string, Head | null>): Promise<SealReport> {
    let sealed = 0;
    let checkpoints = 0;
    const refused = new Map<string, ChainVerification>();
    const sealing = async (kind: EvidenceKind, stream: string, work: () => Promise<SealReport>): Promise<void> => {
      if (refused.has(streamKey(kind, stream))) return;
      try {
        const report = await work();
        sealed += report.sealed;
        checkpoints += report.checkpoints;
      } catch (error) {
        if (!(error instanceof EvidenceChainBrokenError)) throw error;
        for (const verdict of error.broken) refused.set(streamKey(verdict.kind, verdict.stream), verdict);
      }
    };
    for (const kind of Object.values(EvidenceKind)) {
      const pending =
        this.connection.dialect === 'postgres'
          ? await this.distinctStreams(PENDING_EVIDENCE, kind)
          : (
              (await this.dataSource.query(
                `SELECT DISTINCT r.stream FROM ${TABLES[kind].table} r${this.pendingHint(kind)} WHERE r.link_pending = 1`,
              )) as Row[]
            ).map((row) => String(row.stream));
      for (const stream of pending) await sealing(kind, stream, () => this.sealStream(kind, stream));
      if (this.key === undefined || !canSign(this.key)) continue;
      for (const stream of await this.linkedStreams(kind)) {
        const head = verified === undefined ? undefined : (verified.get(streamKey(kind, stream)) ?? null);
        if (head === null) continue; // not verified intact: a prune pins nothing of it
        await sealing(kind, stream, async () => ({
          sealed: 0,
          checkpoints: await this.locked(kind, stream, (query) => this.pinHead(kind, stream, query, head)),
        }));
      }
    }
    if (refused.size > 0) throw new EvidenceChainBrokenError([...refused.values()], 'seal');
    return { sealed, checkpoints };
  }

  /**
   * Links the records of `stream` still queued, oldest first, a batch per transaction under the
   * stream's lock, until none is left: what a background seal does for a stream whose writes outran it.
   */
  async sealStream(kind: EvidenceKind, stream: string): Promise<SealReport> {
    let sealed = 0;
    let checkpoints = 0;
    for (;;) {
      const { report, more } = await this.locked(kind, stream, (query) =>
        then(this.readPending(kind, stream, query), (rows) =>
          then(
            this.linkBatch(
              kind,
              stream,
              rows.filter((row) => !isStray(stream, row)).map((row) => this.hydrate(kind, row)),
              query,
            ),
            (report) => {
              const strays = rows.filter((row) => isStray(stream, row));
              // A full batch may have more behind it; a record queued again under its own time in this stream too.
              const more =
                rows.length === SEAL_BATCH || strays.some((row) => row.id !== null && String(row.stream) === stream);
              return then(this.dequeue(kind, stream, strays, query), () => ({ report, more }));
            },
          ),
        ),
      );
      sealed += report.sealed;
      checkpoints += report.checkpoints;
      if (!more) return { sealed, checkpoints };
    }
  }

  /**
   * The next batch of `stream`'s pending records, oldest first. PostgreSQL reads its queue table (ADR 0135) and each
   * record by one index probe; each row comes back with its queue row's address and key (`queued_*`), and with a NULL
   * `id` when its record is gone (an older sealer linked it, then a prune deleted it). SQLite and MySQL/MariaDB read
   * the marked records from their pending index.
   */
  private readPending(kind: EvidenceKind, stream: string, query: Query): Sync<Row[]> {
    const { table } = TABLES[kind];
    if (this.connection.dialect === 'postgres')
      return query(
        `SELECT p.ctid AS queued_ctid, p.recorded_at AS queued_at, p.record_id AS queued_id, r.* FROM (SELECT ctid, recorded_at, record_id FROM ${PENDING_EVIDENCE} WHERE kind = $1 AND stream = $2 ORDER BY recorded_at, record_id LIMIT ${SEAL_BATCH}) p LEFT JOIN LATERAL (SELECT * FROM ${table} WHERE id = p.record_id LIMIT 1) r ON true ORDER BY p.recorded_at, p.record_id`,
        [kind, stream],
      );
    return query(
      `SELECT r.* FROM ${table} r${this.pendingHint(kind)} WHERE r.link_pending = 1 AND r.stream = ${this.connection.param(1)} ORDER BY r.recorded_at, r.id LIMIT ${SEAL_BATCH}`,
      [stream],
    );
  }

  /**
   * PostgreSQL, inside the stream's lock: takes out of the queue the rows a batch read that it did not link (see
   * {@link isStray}), by the addresses it read them at, so the next batch does not read them again; a record still
   * there but of another stream now is queued under its own stream and time, for that stream's seal.
   */
  private dequeue(kind: EvidenceKind, stream: string, strays: readonly Row[], query: Query): Sync<unknown> {
    if (strays.length === 0) return null;
    const moved = strays.filter((row) => row.id !== null).map((row) => String(row.id));
    return then(
      moved.length === 0
        ? null
        : query(
            `INSERT INTO ${PENDING_EVIDENCE} (kind, stream, recorded_at, record_id) SELECT $1, r.stream, r.recorded_at, r.id FROM unnest($2::varchar[]) AS u(id) CROSS JOIN LATERAL (SELECT stream, recorded_at, id FROM ${TABLES[kind].table} WHERE id = u.id LIMIT 1) r ON CONFLICT DO NOTHING`,
            [kind, moved],
          ),
      () =>
        query(
          `DELETE FROM ${PENDING_EVIDENCE} WHERE ctid = ANY ($3::tid[]) AND kind = $1 AND stream = $2 AND record_id = ANY ($4::varchar[])`,
          [kind, stream, strays.map((row) => row.queued_ctid), strays.map((row) => row.queued_id)],
        ),
    );
  }

  /** MySQL/MariaDB's hint to read pending records by their index, whatever the statistics say. */
  private pendingHint(kind: EvidenceKind): string {
    return this.connection.dialect === 'mysql' ? ` FORCE INDEX (${TABLES[kind].pendingIndex})` : '';
  }

  /** The streams with links of `kind`: what a seal pins. */
  private linkedStreams(kind: EvidenceKind): Promise<string[]> {
    return this.distinctStreams(LINKS, kind);
  }

  /**
   * The distinct streams of `table` (of `kind`, when the table holds several kinds), one index probe per stream
   * (a loose index scan written out), so listing them costs the same however many rows each stream has (ADR 0110:
   * the record tables have an index on `stream`, the links and checkpoints one that leads with `kind`, `stream`).
   * PostgreSQL and SQLite walk the streams in one recursive query. MySQL/MariaDB take one statement per stream
   * (ADR 0079): their recursive queries stop at `max_recursive_iterations` (1,000 by default, MariaDB silently,
   * which would leave every stream after the 1,001st out), MariaDB does not seek the index for a bound that comes
   * from the recursion (it read every row per step), and a DISTINCT reads every row too.
   */
  private async distinctStreams(table: string, kind: EvidenceKind | null): Promise<string[]> {
    const p = (index: number) => this.connection.param(index);
    if (this.connection.dialect === 'mysql') {
      const streams: string[] = [];
      for (let after: string | null = null; ;) {
        const conditions: string[] = [
          ...(kind === null ? [] : ['kind = ?']),
          ...(after === null ? [] : ['stream > ?']),
        ];
        const [row]: Row[] = await this.dataSource.query(
          `SELECT MIN(stream) AS stream FROM ${table}${conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`}`,
          [...(kind === null ? [] : [kind]), ...(after === null ? [] : [after])],
        );
        if (row?.stream === null || row?.stream === undefined) return streams;
        streams.push((after = String(row.stream)));
      }
    }
    const postgres = this.connection.dialect === 'postgres';
    // SQLite numbers its parameters by position of use; PostgreSQL reuses $1.
    const ofKind = (index: number) => (kind === null ? '' : `kind = ${postgres ? p(1) : p(index)} AND `);
    const rows: Row[] = await this.dataSource.query(
      `WITH RECURSIVE s (stream) AS (SELECT MIN(stream) FROM ${table}${kind === null ? '' : ` WHERE kind = ${p(1)}`} UNION ALL SELECT (SELECT t.stream FROM ${table} t WHERE ${ofKind(2)}t.stream > s.stream ORDER BY t.stream LIMIT 1) FROM s WHERE s.stream IS NOT NULL) SELECT stream FROM s WHERE stream IS NOT NULL`,
      kind === null ? [] : postgres ? [kind] : [kind, kind],
    );
    return rows.map((row) => String(row.stream));
  }

  /**
   * Inside the stream's lock: signs a checkpoint of the head when no checkpoint pins it (a sealer that died
   * between its links and its checkpoint, links written before the key was configured), so `verify` no longer
   * reports it `unpinned` (ADR 0048). With `verified`, only if the head is still that one (a prune's); otherwise only
   * if the links no checkpoint pins verify ({@link verifyUnpinned}). Answers the checkpoints written.
   * @throws EvidenceChainBrokenError when they do not: nothing is signed.
   */
  private pinHead(kind: EvidenceKind, stream: string, query: Query, verified?: Head): Sync<number> {
    const key = this.key;
    if (key === undefined || !canSign(key)) return 0;
    return then(this.headOf(kind, stream, query), ({ head, pinned }) => {
      if (head.sequence <= (pinned?.sequence ?? GENESIS_HEAD.sequence)) return 0;
      if (verified !== undefined && (head.sequence !== verified.sequence || head.hash !== verified.hash)) return 0;
      return then(verified === undefined ? this.verifyUnpinned(kind, stream, head, pinned, query) : null, () =>
        then(this.insertCheckpoint(query, key, kind, { stream, ...head }, CheckpointPurpose.Seal), () => 1),
      );
    });
  }

  /**
   * Inside the stream's lock, before a checkpoint is signed after `head`: the links after `pinned` (the last record a
   * checkpoint pins, `null` when none does) must follow it and their records must hash to them, or nothing is signed
   * over them (ADR 0048). Only those links are read, so a seal's cost does not grow with the stream: after every
   * seal's checkpoint there are none, after a sealer that died before its checkpoint one batch. A stream no checkpoint
   * pins at all (links written before the key was configured) has nothing signed to verify from and is not read: the
   * documented recovery pins it as it stands (docs/evidence.md, "Verify"). A head at `pinned`'s sequence must hold
   * `pinned`'s hash: one that does not was relinked since (`broken_link` there), and nothing is linked after it.
   * @throws EvidenceChainBrokenError (`refused`: a seal's unless said) when the links do not verify (or the last
   *   checkpoint's sequence cannot be read).
   */
  private verifyUnpinned(
    kind: EvidenceKind,
    stream: string,
    head: Head,
    pinned: Head | null,
    query: Query,
    refused: EvidenceChainBrokenError['refused'] = 'seal',
  ): Sync<void> {
    if (pinned === null) return;
    if (head.sequence === pinned.sequence) {
      if (head.hash === pinned.hash) return;
      throw new EvidenceChainBrokenError([changedSince(kind, stream, head.sequence, ChainProblem.BrokenLink)], refused);
    }
    // A head before the last checkpoint's sequence: links a checkpoint pins were deleted (`truncated`).
    const verifier = ChainVerifier.after(kind, stream, pinned, head);
    return then(
      Number.isSafeInteger(pinned.sequence) && head.sequence > pinned.sequence
        ? this.readLinks(kind, stream, verifier, pinned.sequence, query)
        : null,
      () => {
        const verdict = verifier.finish(0);
        if (!verdict.intact) throw new EvidenceChainBrokenError([verdict], refused);
      },
    );
  }

  /**
   * Feeds `verifier` the links of `stream` after sequence `after`, with their records, in sequence order: pages of
   * {@link VERIFY_PAGE} (keyset by sequence), until it answers `false` or none is left.
   */
  private readLinks(
    kind: EvidenceKind,
    stream: string,
    verifier: ChainVerifier,
    after: number,
    query: Query,
  ): Sync<void> {
    const p = (index: number) => this.connection.param(index);
    return then(
      query(
        `SELECT l.sequence AS link_sequence, l.previous_hash AS link_previous_hash, l.hash AS link_hash, r.* FROM ${LINKS} l LEFT JOIN ${TABLES[kind].table} r ON r.id = l.record_id WHERE l.kind = ${p(1)} AND l.stream = ${p(2)} AND l.sequence > ${p(3)} ORDER BY l.sequence LIMIT ${VERIFY_PAGE}`,
        [kind, stream, after],
      ),
      (rows) => {
        for (const row of rows) {
          const link = {
            stream,
            sequence: Number(row.link_sequence),
            previousHash: String(row.link_previous_hash),
            hash: String(row.link_hash),
          };
          if (!verifier.accept(row.id === null || row.id === undefined ? null : this.hydrate(kind, row), link)) return;
        }
        if (rows.length === VERIFY_PAGE)
          return this.readLinks(kind, stream, verifier, Number(rows[rows.length - 1]!.link_sequence), query);
      },
    );
  }

  async verify(options: ChainVerifyOptions = {}): Promise<ChainVerification[]> {
    return (await this.verifyEach(options)).map(({ verdict }) => verdict);
  }

  /**
   * {@link verify}, each verdict with the head its stream was verified through (`null`: not intact) and, with `before`
   * (a prune's cutoff), the cut point it saw ({@link ChainVerifier.firstKept}).
   */
  private async verifyEach(options: ChainVerifyOptions = {}, before?: Date): Promise<Verified[]> {
    const verdicts: Verified[] = [];
    for (const kind of Object.values(EvidenceKind)) {
      const witnessed = (options.witness ?? []).filter((entry) => entry.kind === kind).map((entry) => entry.stream);
      const streams = [...new Set([...(await this.streams(kind)), ...witnessed])].sort();
      for (const stream of streams)
        verdicts.push(await this.verifyStream(kind, stream, witnessOf(options, kind, stream), before));
    }
    return verdicts;
  }

  async prune(before: Date): Promise<PruneReport> {
    // Past 9999, SQLite (text) and MariaDB (DATETIME) would find another cut point than the verification.
    checkedPruneCutoff(before);
    const key = this.key;
    if (key === undefined || !canSign(key))
      throw new VerdictConfigurationError(
        'Pruning evidence leaves a signed checkpoint: give the recorder a checkpointKey that can sign (an HMAC secret or an Ed25519 private key).',
      );
    // A prune deletes records and signs checkpoints (its seal's, its anchors): never over a stream that does not
    // verify. So the chain is verified as it stands before anything is signed: the seal signs a checkpoint of a head
    // no checkpoint pins (ADR 0048), which would pin a relinked tail that is `unpinned` now.
    const verified = intactOrThrow(await this.verifyEach({}, before));
    // The seal links the records still queued, so that the prune keeps chaining after them; it pins a head only if
    // it is the head just verified.
    const { sealed } = await this.sealAll(
      new Map(verified.map(({ verdict, head }) => [streamKey(verdict.kind, verdict.stream), head])),
    ).catch((error: unknown) => {
      // A stream its seal left (changed since the verification): the prune is what was refused.
      throw error instanceof EvidenceChainBrokenError ? new EvidenceChainBrokenError(error.broken) : error;
    });
    // What it linked is verified too before anything is deleted.
    const seen = verifiedStreams(sealed > 0 ? intactOrThrow(await this.verifyEach({}, before)) : verified);
    let pruned = 0;
    let anchored = 0;
    const refused: ChainVerification[] = [];
    for (const kind of Object.values(EvidenceKind)) {
      for (const stream of await this.streams(kind)) {
        // A stream the verification did not see was written since: it is verified from its start.
        const verifiedStream = seen.get(streamKey(kind, stream)) ?? { head: GENESIS_HEAD, firstKept: null };
        try {
          const removed = await this.locked(kind, stream, (query) =>
            then(this.unchangedSince(kind, stream, verifiedStream, before, query), (firstKept) =>
              this.pruneStream(kind, stream, firstKept, key, query),
            ),
          );
          pruned += removed;
          if (removed > 0) anchored++;
        } catch (error) {
          if (!(error instanceof EvidenceChainBrokenError)) throw error;
          refused.push(...error.broken);
        }
      }
    }
    // What the other streams lost is said too: the refusal does not undo it.
    if (refused.length > 0)
      throw new EvidenceChainBrokenError(refused, 'prune', pruned > 0 ? { pruned, anchored } : undefined);
    return { pruned, anchored };
  }

  /**
   * Inside the stream's lock, before a prune deletes or signs anything of it: the stream's head must still be the head
   * its verification found intact (`verified.head`), or follow it by links that verify ({@link verifyUnpinned} from
   * it: those a seal linked since). Only those links are read, so it costs the same however long the stream is.
   * Without it, a chain rewritten between the verification and the prune (a record edited and the links after it
   * recomputed, by whoever can write the tables) would be signed, the checkpoints that pin the kept records deleted
   * with the pruned ones, and `verify` would report the forgery intact. The head's checkpoint vouches for the kept
   * links before it, which every verification checks again from the prune anchor.
   *
   * Then the cut point, read from the tables as they are now: the first record recorded at or after `before`
   * ({@link firstKeptOf}) must be the one the verification saw (`verified.firstKept`). Otherwise records the
   * verification found on or after the cutoff were deleted or back-dated since (or older ones forward-dated), and the
   * prune would delete the newer records with their links and sign the genuine link before the moved cut: `verify`
   * would report the stream intact. Only when the verification saw none may it be a record linked since (after the
   * verified head): a writer's.
   * @throws EvidenceChainBrokenError (a prune's) when it is not so: nothing of the stream is deleted or signed.
   * @returns The cut point to prune before (`null`: every linked record was recorded before `before`).
   */
  private unchangedSince(
    kind: EvidenceKind,
    stream: string,
    verified: VerifiedStream,
    before: Date,
    query: Query,
  ): Sync<number | null> {
    return then(this.headOf(kind, stream, query, [], false), ({ head }) =>
      then(this.verifyUnpinned(kind, stream, head, verified.head, query, 'prune'), () =>
        then(this.firstKeptOf(kind, stream, before, query), (firstKept) => {
          const { head: seen, firstKept: saw } = verified;
          const moved = saw === null ? firstKept !== null && firstKept <= seen.sequence : firstKept !== saw;
          if (!moved) return firstKept;
          // Named at the earlier of the two: the record there is gone (`missing`) or was re-dated (`modified`).
          const at = Math.min(...[saw, firstKept].filter((sequence) => sequence !== null));
          return then(this.recordAt(kind, stream, at, query), (found) => {
            const problem = found ? ChainProblem.Modified : ChainProblem.Missing;
            throw new EvidenceChainBrokenError([changedSince(kind, stream, at, problem)]);
          });
        }),
      ),
    );
  }

  /** The sequence of the first linked record of the stream recorded at or after `before`, as the tables are now. */
  private firstKeptOf(kind: EvidenceKind, stream: string, before: Date, query: Query): Sync<number | null> {
    const p = (index: number) => this.connection.param(index);
    return then(
      query(
        `SELECT MIN(l.sequence) AS first_kept FROM ${LINKS} l JOIN ${TABLES[kind].table} r ON r.id = l.record_id WHERE l.kind = ${p(1)} AND l.stream = ${p(2)} AND r.recorded_at >= ${p(3)}`,
        [kind, stream, this.connection.instant(before)],
      ),
      (rows) => {
        const { first_kept: firstKept } = rows[0] ?? {};
        return firstKept === null || firstKept === undefined ? null : Number(firstKept);
      },
    );
  }

  /** Whether the stream's link at `sequence` is there with its record. */
  private recordAt(kind: EvidenceKind, stream: string, sequence: number, query: Query): Sync<boolean> {
    const p = (index: number) => this.connection.param(index);
    return then(
      query(
        `SELECT r.id FROM ${LINKS} l JOIN ${TABLES[kind].table} r ON r.id = l.record_id WHERE l.kind = ${p(1)} AND l.stream = ${p(2)} AND l.sequence = ${p(3)}`,
        [kind, stream, sequence],
      ),
      (rows) => rows.length > 0,
    );
  }

  /**
   * Inside the stream's lock: read the head and which records are linked already (one statement), insert the links
   * of the rest in one statement, take them all out of the queue. Records are looked up one index probe per id
   * whatever the statistics say (PostgreSQL: a lateral subquery per id, which only a unique index serves; the queue
   * rows are deleted by the row addresses it found; MySQL/MariaDB: a forced index), so a batch costs the same on a
   * fresh schema and at any size of the stream.
   */
  private linkBatch(kind: EvidenceKind, stream: string, records: readonly Linkable[], query: Query): Sync<SealReport> {
    if (records.length === 0) return { sealed: 0, checkpoints: 0 };
    const ids = records.map((record) => record.id);
    const key = this.key !== undefined && canSign(this.key) ? this.key : undefined;
    return then(this.headOf(kind, stream, query, ids, key !== undefined), ({ head, linked, pinned }) => {
      const done = new Set(linked);
      const fresh = records.filter((record) => !done.has(record.id));
      if (fresh.length === 0) return then(this.clearPending(kind, ids, query), () => ({ sealed: 0, checkpoints: 0 }));
      // The batch's checkpoint vouches for the links before it too: those no checkpoint pins are verified first.
      return then(key === undefined ? null : this.verifyUnpinned(kind, stream, head, pinned, query), () =>
        then(this.linksAfter(kind, stream, head, fresh), (links) =>
          then(this.insertLinks(kind, links, fresh, ids, query), () => {
            const last = links[links.length - 1]!;
            if (key === undefined) return { sealed: links.length, checkpoints: 0 };
            return then(this.insertCheckpoint(query, key, kind, last, CheckpointPurpose.Seal), () => ({
              sealed: links.length,
              checkpoints: 1,
            }));
          }),
        ),
      );
    });
  }

  /**
   * Inserts `links` (one per record of `linked`, in order) in one statement and takes the records `ids` out of the
   * queue. The links go first: a MySQL/MariaDB sealer (autocommitted statements) stopped between the two leaves
   * records marked pending that are linked, which the next seal unmarks. PostgreSQL writes both in one statement (one
   * round trip less while the stream is locked).
   */
  private insertLinks(
    kind: EvidenceKind,
    links: readonly ChainLink[],
    linked: readonly Linkable[],
    ids: readonly string[],
    query: Query,
  ): Sync<unknown> {
    const p = (index: number) => this.connection.param(index);
    const parameters = links.flatMap((link, i) => [
      kind,
      link.stream,
      link.sequence,
      linked[i]!.id,
      link.previousHash,
      link.hash,
    ]);
    const values = links.map((_, i) => `(${[1, 2, 3, 4, 5, 6].map((column) => p(i * 6 + column)).join(', ')})`);
    const insert = `INSERT INTO ${LINKS} (kind, stream, sequence, record_id, previous_hash, hash) VALUES ${values.join(', ')}`;
    if (this.connection.dialect === 'postgres')
      return query(`WITH linked AS (${insert}) ${this.clearPendingSql(kind, parameters.length + 1)}`, [
        ...parameters,
        ids,
      ]);
    return then(query(insert, parameters), () => this.clearPending(kind, ids, query));
  }

  /**
   * The links of `records` after `head`. Off SQLite, whose seal runs in one synchronous turn, they are hashed
   * {@link HASH_CHUNK} records at a time, and the event loop runs between chunks (ADR 0142): a batch of 500 hashed in
   * one go held up everything else the process does (the application's requests, its writers' replies) for
   * milliseconds.
   */
  private linksAfter(
    kind: EvidenceKind,
    stream: string,
    head: Pick<ChainLink, 'sequence' | 'hash'>,
    records: readonly Linkable[],
  ): Sync<ChainLink[]> {
    if (this.connection.dialect === 'sqlite') return linkAfter(kind, stream, head, records);
    return (async () => {
      const links: ChainLink[] = [];
      for (let start = 0; start < records.length; start += HASH_CHUNK) {
        if (start > 0) await setImmediate();
        links.push(...linkAfter(kind, stream, links.at(-1) ?? head, records.slice(start, start + HASH_CHUNK)));
      }
      return links;
    })();
  }

  /** Takes the records `ids` (linked now, or found linked already) out of the queue. */
  private clearPending(kind: EvidenceKind, ids: readonly string[], query: Query): Sync<unknown> {
    const p = (index: number) => this.connection.param(index);
    if (this.connection.dialect === 'postgres') return query(this.clearPendingSql(kind, 2), [kind, ids]);
    // MySQL/MariaDB: by primary key, one row lock per id. Left to the optimizer, a small table was scanned, and at
    // REPEATABLE READ a scan locks every row and gap it passes: a concurrent multi-row evidence INSERT deadlocked.
    // The mark goes to 0 there, as wide as 1, so InnoDB rewrites it in place; a NULL takes no room in the row, which
    // InnoDB then writes anew (ADR 0142).
    const mysql = this.connection.dialect === 'mysql';
    return query(
      `UPDATE ${TABLES[kind].table}${mysql ? ' FORCE INDEX (PRIMARY)' : ''} SET link_pending = ${mysql ? '0' : 'NULL'} WHERE id IN (${ids.map((_, i) => p(i + 1)).join(', ')})`,
      ids,
    );
  }

  /**
   * PostgreSQL: deletes the queue rows of the records whose ids are in parameter `$index` (an array), of kind `$1`,
   * by their addresses: each record's queue key is read from the record (one index probe), then its queue row (one
   * more), whatever the statistics say.
   */
  private clearPendingSql(kind: EvidenceKind, index: number): string {
    const { table } = TABLES[kind];
    return `DELETE FROM ${PENDING_EVIDENCE} WHERE ctid = ANY (ARRAY(SELECT q.ctid FROM unnest($${index}::varchar[]) AS u(id) CROSS JOIN LATERAL (SELECT stream, recorded_at FROM ${table} WHERE id = u.id LIMIT 1) r CROSS JOIN LATERAL (SELECT ctid FROM ${PENDING_EVIDENCE} WHERE kind = $1 AND stream = r.stream AND recorded_at = r.recorded_at AND record_id = u.id LIMIT 1) q))`;
  }

  /**
   * The stream's last link, or its prune anchor, whichever is later (the genesis head for a new stream), the last
   * record a checkpoint pins (`pinned`, `null` when none does), and which of the records `ids` are linked already: one
   * statement, so a seal reads them in one round trip under its lock.
   */
  private headOf(
    kind: EvidenceKind,
    stream: string,
    query: Query,
    ids: readonly string[] = [],
    withPinned = true,
  ): Sync<{ head: Head; pinned: Head | null; linked: string[] }> {
    const parameters: unknown[] = [];
    /** The placeholder of `value`, added as the next parameter. */
    const p = (value: unknown) => this.connection.param(parameters.push(value));
    const last = (table: string, where: string) =>
      `SELECT sequence, hash FROM ${table} WHERE ${where} ORDER BY sequence DESC LIMIT 1`;
    const heads = [
      `SELECT h.sequence, h.hash, NULL AS record_id, 0 AS pins FROM (${last(LINKS, `kind = ${p(kind)} AND stream = ${p(stream)}`)}) h`,
      `SELECT a.sequence, a.hash, NULL, 0 FROM (${last(CHECKPOINTS, `kind = ${p(kind)} AND stream = ${p(stream)} AND purpose = ${p(CheckpointPurpose.Prune)}`)}) a`,
    ];
    // The last record a checkpoint pins: read only where a checkpoint may be signed (a keyless seal verifies nothing).
    if (withPinned)
      heads.push(
        `SELECT c.sequence, c.hash, NULL, 1 FROM (${last(CHECKPOINTS, `kind = ${p(kind)} AND stream = ${p(stream)}`)}) c`,
      );
    if (ids.length > 0) {
      // One index probe per id: a lateral subquery on PostgreSQL (only the unique index serves it), a forced index on
      // MySQL/MariaDB.
      if (this.connection.dialect === 'postgres')
        heads.push(
          `SELECT NULL, NULL, l.record_id, 0 FROM unnest(${p(ids)}::varchar[]) AS u(id) CROSS JOIN LATERAL (SELECT record_id FROM ${LINKS} WHERE kind = ${p(kind)} AND record_id = u.id LIMIT 1) l`,
        );
      else
        heads.push(
          `SELECT NULL, NULL, record_id, 0 FROM ${LINKS}${this.connection.dialect === 'mysql' ? ' FORCE INDEX (uq_verdict_evidence_links_record)' : ''} WHERE kind = ${p(kind)} AND record_id IN (${ids.map((id) => p(id)).join(', ')})`,
        );
    }
    return then(query(heads.join(' UNION ALL '), parameters), (rows) => {
      const linked: string[] = [];
      const tops: Head[] = [];
      let pinned: Head | null = null;
      for (const row of rows) {
        const top = { sequence: Number(row.sequence), hash: String(row.hash) };
        if (row.record_id !== null && row.record_id !== undefined) linked.push(String(row.record_id));
        else if (Number(row.pins) === 1) pinned = top;
        else tops.push(top);
      }
      return { head: tops.sort((a, b) => b.sequence - a.sequence)[0] ?? GENESIS_HEAD, pinned, linked };
    });
  }

  /**
   * Inside the stream's lock: prunes up to the link before `firstKept`, the first record recorded at or after the
   * cutoff ({@link unchangedSince}; `null`: through the head), so every newer record stays. Answers the records deleted.
   */
  private pruneStream(
    kind: EvidenceKind,
    stream: string,
    firstKept: number | null,
    key: CheckpointKey,
    query: Query,
  ): Sync<number> {
    const { table } = TABLES[kind];
    const p = (index: number) => this.connection.param(index);
    const scope = `kind = ${p(1)} AND stream = ${p(2)}`;
    return then(query(`SELECT MAX(sequence) AS last FROM ${LINKS} WHERE ${scope}`, [kind, stream]), (heads) => {
      const { last } = heads[0] ?? {};
      if (last === null || last === undefined) return 0;
      const through = firstKept === null ? Number(last) : firstKept - 1;
      return then(
        query(`SELECT sequence, hash FROM ${LINKS} WHERE ${scope} AND sequence = ${p(3)}`, [kind, stream, through]),
        (anchors) => {
          const anchor = anchors[0];
          if (anchor === undefined) return 0;
          const link = { stream, sequence: Number(anchor.sequence), hash: String(anchor.hash) };
          const upTo = [kind, stream, through];
          // The anchor is written first: a prune cut short leaves records the anchor already vouches for.
          return then(
            query(`SELECT COUNT(*) AS doomed FROM ${LINKS} WHERE ${scope} AND sequence <= ${p(3)}`, upTo),
            (counted) =>
              then(this.insertCheckpoint(query, key, kind, link, CheckpointPurpose.Prune), (pruneAnchor) =>
                then(
                  query(
                    `DELETE FROM ${table} WHERE id IN (SELECT record_id FROM ${LINKS} WHERE ${scope} AND sequence <= ${p(3)})`,
                    upTo,
                  ),
                  () =>
                    then(query(`DELETE FROM ${LINKS} WHERE ${scope} AND sequence <= ${p(3)}`, upTo), () =>
                      // Every checkpoint before the anchor in the checkpoint chain goes: the anchor vouches for them.
                      // A pre-chain one (no previous hash) lies before every chained one, whatever its row says.
                      then(
                        query(
                          `DELETE FROM ${CHECKPOINTS} WHERE ${scope} AND (checkpoint_sequence IS NULL OR previous_checkpoint_hash IS NULL OR checkpoint_sequence < ${p(3)})`,
                          [kind, stream, pruneAnchor.checkpointSequence],
                        ),
                        () =>
                          // The kept records after the anchor are pinned again by a checkpoint of the head.
                          then(
                            Number(last) > through
                              ? then(
                                  query(`SELECT sequence, hash FROM ${LINKS} WHERE ${scope} AND sequence = ${p(3)}`, [
                                    kind,
                                    stream,
                                    Number(last),
                                  ]),
                                  (tops) =>
                                    this.insertCheckpoint(
                                      query,
                                      key,
                                      kind,
                                      { stream, sequence: Number(tops[0]!.sequence), hash: String(tops[0]!.hash) },
                                      CheckpointPurpose.Seal,
                                    ),
                                )
                              : null,
                            () => Number(counted[0]?.doomed ?? 0),
                          ),
                      ),
                    ),
                ),
              ),
          );
        },
      );
    });
  }

  /**
   * Signs and inserts the stream's next checkpoint, chained after its checkpoint head; answers what it wrote. The head is
   * the last checkpoint with both chain fields: a pre-chain checkpoint signed neither, so a `checkpoint_sequence` written
   * into its row places it nowhere (ADR 0183).
   */
  private insertCheckpoint(
    query: Query,
    key: CheckpointKey,
    kind: EvidenceKind,
    link: Pick<ChainLink, 'stream' | 'sequence' | 'hash'>,
    purpose: CheckpointPurpose,
  ): Sync<EvidenceCheckpoint> {
    const p = (index: number) => this.connection.param(index);
    return then(
      query(
        `SELECT * FROM ${CHECKPOINTS} WHERE kind = ${p(1)} AND stream = ${p(2)} AND checkpoint_sequence IS NOT NULL AND previous_checkpoint_hash IS NOT NULL ORDER BY checkpoint_sequence DESC LIMIT 1`,
        [kind, link.stream],
      ),
      (heads) => {
        const head = heads[0] === undefined ? null : checkpointOf(heads[0]);
        const signed = signCheckpoint(key, {
          kind,
          stream: link.stream,
          sequence: link.sequence,
          hash: link.hash,
          checkpointSequence: (head?.checkpointSequence ?? 0) + 1,
          previousCheckpointHash: head === null ? GENESIS_HASH : checkpointHash(head),
          purpose,
        });
        const checkpoint: EvidenceCheckpoint = { ...signed, id: evidenceId(), createdAt: new Date() };
        return then(
          query(
            `INSERT INTO ${CHECKPOINTS} (id, kind, stream, sequence, hash, checkpoint_sequence, previous_checkpoint_hash, purpose, algorithm, key_id, signature, created_at) VALUES (${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map(p).join(', ')})`,
            [
              checkpoint.id,
              kind,
              link.stream,
              link.sequence,
              link.hash,
              checkpoint.checkpointSequence,
              checkpoint.previousCheckpointHash,
              purpose,
              checkpoint.algorithm,
              checkpoint.keyId,
              checkpoint.signature,
              this.connection.instant(checkpoint.createdAt),
            ],
          ),
          () => checkpoint,
        );
      },
    );
  }

  private async verifyStream(
    kind: EvidenceKind,
    stream: string,
    witness: ChainVerification['checkpointHead'],
    before?: Date,
  ): Promise<Verified> {
    const { table } = TABLES[kind];
    const p = (index: number) => this.connection.param(index);
    const checkpoints = (
      await this.dataSource.query(
        `SELECT * FROM ${CHECKPOINTS} WHERE kind = ${p(1)} AND stream = ${p(2)} ORDER BY sequence`,
        [kind, stream],
      )
    ).map(checkpointOf);
    const verifier = new ChainVerifier(kind, stream, checkpoints, this.key, witness);
    if (before !== undefined) verifier.keepFrom(before);
    // The readers feed links after sequence 0 in order; a link below the chain's start is found here (one index probe).
    const [{ lowest = null } = {}] = (await this.dataSource.query(
      `SELECT MIN(sequence) AS lowest FROM ${LINKS} WHERE kind = ${p(1)} AND stream = ${p(2)}`,
      [kind, stream],
    )) as Array<{ lowest?: unknown }>;
    verifier.linksStartAt(lowest === null ? null : Number(lowest));
    if (this.connection.dialect === 'postgres') {
      const reader = (this.readers[kind] ??= new PostgresChainReader(
        this.dataSource,
        kind,
        table,
        this.columnsOf(kind),
        VERIFY_PAGE,
      ));
      const { unsealed, queued } = await reader.read(stream, ({ link, recordId, record }) =>
        record === 'stored-form'
          ? this.dataSource
              .query(`SELECT * FROM ${table} WHERE id = $1`, [recordId])
              .then((rows: Row[]) => verifier.accept(rows[0] === undefined ? null : this.hydrate(kind, rows[0]), link))
          : verifier.acceptHashed(link, record),
      );
      return {
        verdict: verifier.finish(unsealed, queued),
        head: verifier.verifiedHead(),
        firstKept: verifier.firstKept(),
      };
    }
    // Counted on a connection of its own while the chain is read (ADR 0080): records unlinked when verification
    // began, so a record linked meanwhile is counted rather than missed. One statement, so both counts are of one
    // snapshot: a seal links a record before it takes it out of the queue, never after.
    const counted: Promise<Row[]> = this.dataSource.query(
      `SELECT (${this.unlinkedSql(kind, 1)}) AS unsealed, (${this.unlinkedSql(kind, 3, true)}) AS queued`,
      [stream, kind, stream, kind],
    );
    counted.catch(() => undefined);
    await this.readLinks(kind, stream, verifier, 0, (sql, parameters) => this.dataSource.query(sql, [...parameters]));
    const [{ unsealed = 0, queued = 0 } = {}] = (await counted) as Array<{ unsealed?: unknown; queued?: unknown }>;
    const verdict = verifier.finish(Number(unsealed), Number(queued));
    return { verdict, head: verifier.verifiedHead(), firstKept: verifier.firstKept() };
  }

  /**
   * SQLite and MySQL/MariaDB: counts the records of a stream (parameter `first`) of `kind` (the next parameter) that no
   * link of the stream names (a link of another stream naming one does not link it into this chain), as PostgreSQL's
   * reader counts them; with `queued`, only those marked pending, read from the pending index (what the queue holds).
   */
  private unlinkedSql(kind: EvidenceKind, first: number, queued = false): string {
    const p = (index: number) => this.connection.param(index);
    const records = queued ? `r${this.pendingHint(kind)} WHERE r.link_pending = 1 AND` : 'r WHERE';
    return `SELECT COUNT(*) FROM ${TABLES[kind].table} ${records} r.stream = ${p(first)} AND NOT EXISTS (SELECT 1 FROM ${LINKS} l WHERE l.kind = ${p(first + 1)} AND l.record_id = r.id AND l.stream = r.stream)`;
  }

  /** The streams of `kind` with records, links or checkpoints. */
  private async streams(kind: EvidenceKind): Promise<string[]> {
    const lists = [
      await this.distinctStreams(TABLES[kind].table, null),
      await this.distinctStreams(LINKS, kind),
      await this.distinctStreams(CHECKPOINTS, kind),
    ];
    return [...new Set(lists.flat())].sort();
  }

  /** The entity columns of `kind`'s records, looked up once: those TypeORM selects (not `link_pending`). */
  private columnsOf(kind: EvidenceKind): ReturnType<DataSource['getMetadata']>['columns'] {
    return (this.columns[kind] ??= this.dataSource
      .getMetadata(TABLES[kind].entity)
      .columns.filter((column) => column.isSelect));
  }

  /** The record a row holds, converted as TypeORM reads the entity, so it hashes as the record that was written. */
  private hydrate(kind: EvidenceKind, row: Row): Linkable & Row {
    const { driver } = this.dataSource;
    const record: Row = {};
    for (const column of this.columnsOf(kind))
      record[column.propertyName] = driver.prepareHydratedValue(row[column.databaseName], column);
    return record as Linkable & Row;
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

/**
 * Whether a row PostgreSQL's seal read from its queue is one it does not link and must take out of the queue itself:
 * its record is gone, is of another stream now, or was recorded at another time than queued (edited since), so the
 * deletion keyed by the record, in the statement that links, would not find its queue row. Never so for a marked
 * row (SQLite, MySQL/MariaDB), which has no queue key.
 */
function isStray(stream: string, row: Row): boolean {
  if (row.queued_id === undefined) return false;
  if (row.id === null) return true;
  return String(row.stream) !== stream || (row.recorded_at as Date).getTime() !== (row.queued_at as Date).getTime();
}

/** A stream's head: its last link, or its prune anchor (the genesis head when it has neither). */
type Head = Pick<ChainLink, 'sequence' | 'hash'>;

/**
 * One stream's verdict, the head it was verified through (`null`: it is not intact), and the first verified record
 * recorded at or after a prune's cutoff (`null`: none, or no prune's verification).
 */
interface Verified {
  readonly verdict: ChainVerification;
  readonly head: Head | null;
  readonly firstKept: number | null;
}

/** What a prune's verification saw of a stream it found intact: its head and its cut point ({@link Verified}). */
interface VerifiedStream {
  readonly head: Head;
  readonly firstKept: number | null;
}

/** The key of a stream of a kind in a map of verified heads. */
function streamKey(kind: EvidenceKind, stream: string): string {
  return `${kind}:${stream}`;
}

/** What `verified` saw of the streams it found intact, by {@link streamKey}. */
function verifiedStreams(verified: readonly Verified[]): Map<string, VerifiedStream> {
  const streams = new Map<string, VerifiedStream>();
  for (const { verdict, head, firstKept } of verified)
    if (head !== null) streams.set(streamKey(verdict.kind, verdict.stream), { head, firstKept });
  return streams;
}

/**
 * The verdict on a stream found changed at `sequence` under its lock since it was vouched for (a checkpoint pins
 * another hash there, or a prune's verification saw another link or cut point there): `problem` there, and nothing of
 * it verified (`verify` names the first bad one).
 */
function changedSince(kind: EvidenceKind, stream: string, sequence: number, problem: ChainProblem): ChainVerification {
  return {
    kind,
    stream,
    intact: false,
    firstBadSequence: sequence,
    problem,
    firstBadCheckpoint: null,
    records: 0,
    verifiedThrough: sequence - 1,
    checkpoints: 0,
    checkpointHead: null,
    signaturesChecked: false,
    unsealed: 0,
  };
}

/** `verified`, when every stream is intact; otherwise throws: nothing may be pruned or signed. */
function intactOrThrow(verified: readonly Verified[]): readonly Verified[] {
  const broken = verified.filter(({ verdict }) => !verdict.intact).map(({ verdict }) => verdict);
  if (broken.length > 0) throw new EvidenceChainBrokenError(broken);
  return verified;
}

/** A value now (SQLite's synchronous statements) or later (the server engines'). */
type Sync<T> = T | Promise<T>;

/** `next(value)` without turning a synchronous value into a promise, so SQLite's locked work stays in one turn. */
function then<T, U>(value: Sync<T>, next: (value: T) => Sync<U>): Sync<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

function checkpointOf(row: Row): EvidenceCheckpoint {
  return {
    id: String(row.id),
    kind: row.kind as EvidenceKind,
    stream: String(row.stream),
    sequence: Number(row.sequence),
    hash: String(row.hash),
    checkpointSequence:
      row.checkpoint_sequence === null || row.checkpoint_sequence === undefined
        ? null
        : Number(row.checkpoint_sequence),
    previousCheckpointHash:
      row.previous_checkpoint_hash === null || row.previous_checkpoint_hash === undefined
        ? null
        : String(row.previous_checkpoint_hash),
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
