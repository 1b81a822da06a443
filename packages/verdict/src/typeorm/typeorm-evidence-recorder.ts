import { performance } from 'node:perf_hooks';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { ChainVerification } from '../evidence/chain-verification.js';
import { EvidenceKind, assertChainable } from '../evidence/chain-link.js';
import { type DecisionRecord, decisionRecord } from '../evidence/decision-record.js';
import type { CheckpointKey } from '../evidence/evidence-checkpoint.js';
import type {
  ChainVerifyOptions,
  EvidenceChain,
  PruneReport,
  SealReport,
} from '../evidence/evidence-chain.interface.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { type ReleaseRecord, releaseRecord } from '../evidence/release-record.js';
import { DecisionRecordEntity } from './decision-record.entity.js';
import { retryDeadlockVictim } from './deadlock-retry.js';
import { EntityRowsInsert } from './entity-rows-insert.js';
import { ReleaseRecordEntity } from './release-record.entity.js';
import { StoreConnection } from './store-connection.js';
import { TypeOrmEvidenceChain } from './typeorm-evidence-chain.js';
import { assertEvidenceRecorderConfigured } from './typeorm-evidence-recorder-configuration.js';

/** Records one process keeps waiting for its background seal, per stream. */
const MAX_UNLINKED = 100_000;
/** How long a background seal waits for more writes before it starts: 200 ms. */
const DEFAULT_SEAL_DELAY_MS = 200;

/** Options of {@link TypeOrmEvidenceRecorder}. */
export interface TypeOrmEvidenceRecorderOptions {
  /**
   * Signs a checkpoint after every sealed batch and anchors prunes (docs/evidence.md, "Checkpoints").
   * Default: none (chains are still hashed and verified; nothing is signed, and `prune` refuses). An unknown
   * algorithm, a blank `keyId`, an empty HMAC secret or a key that is not Ed25519 is refused at construction.
   */
  readonly checkpointKey?: CheckpointKey;
  /**
   * When records are chained: `after-write` (default) seals the streams this process wrote right after
   * each write, in the background (after `sealDelayMs`), one seal at a time per process; `manual` leaves it to `seal()`
   * (`verdict evidence seal`, a scheduled job). Until sealed, a record is not tamper-evident (ADR 0021). Any other
   * value is refused at construction (`VerdictConfigurationError`).
   */
  readonly seal?: 'after-write' | 'manual';
  /**
   * With `after-write`: how long a seal waits after a write before it starts, so that it links what
   * arrives meanwhile in one batch (fewer statements and less CPU per record under load). The tamper
   * window of a record is about this plus one seal. Default: 200 ms. A finite number from 0 to 2,147,483,647 (a
   * timer's longest); any other value is refused at construction (`VerdictConfigurationError`).
   */
  readonly sealDelayMs?: number;
}

/**
 * Writes each decision record as one row of `verdict_decision_records`, and each release record as one
 * row of `verdict_release_records`: a single INSERT (one multi-row INSERT for a batch), no read-back, no
 * transaction of its own. An INSERT the server rolled back as a deadlock victim is sent again, at most three
 * times in all (nothing of it was written). A failed write rejects, so the pipeline can stop the action and a release
 * releases nothing. Records are appended unchained and linked into their stream's hash chain by a seal
 * (ADR 0021), which by default runs in the background after each write. Writes never join an application
 * transaction: on PostgreSQL and MySQL/MariaDB they run on a pooled connection of their own; on better-sqlite3,
 * whose one connection TypeORM shares, a write while a transaction is open rejects with `OuterTransactionError` and
 * writes nothing, since a rollback would take the records with it (ADR 0123).
 * The DataSource needs `verdictEntities` and `verdictMigrations`; on MySQL/MariaDB it must use
 * `timezone: 'Z'` so timestamps are stored as UTC. An option it would misread (an unknown `seal`, a negative
 * `sealDelayMs`, a `checkpointKey` of an unknown algorithm) throws `VerdictConfigurationError` when it is constructed.
 *
 * @example
 * VerdictModule.forRoot({ evidence: new TypeOrmEvidenceRecorder(dataSource, { checkpointKey }) });
 */
export class TypeOrmEvidenceRecorder implements EvidenceRecorder, EvidenceChain {
  private readonly chain: TypeOrmEvidenceChain;
  private readonly connection: StoreConnection;
  private readonly decisions: EntityRowsInsert;
  private readonly releases: EntityRowsInsert;
  private readonly sealAfterWrite: boolean;
  private readonly sealDelayMs: number;
  /** Records written by this process and not linked yet, per kind and stream, in write order. */
  private readonly unlinked = new Map<
    string,
    { kind: EvidenceKind; stream: string; records: Array<{ id: string }>; overflowed: boolean }
  >();
  private sealing: Promise<void> | null = null;
  /** When the oldest record in {@link unlinked} was written (ms, monotonic); `null` while none waits. */
  private oldestUnlinkedAt: number | null = null;

  constructor(
    private readonly dataSource: DataSource,
    options: TypeOrmEvidenceRecorderOptions = {},
  ) {
    assertEvidenceRecorderConfigured(options);
    this.chain = new TypeOrmEvidenceChain(dataSource, options.checkpointKey);
    this.connection = new StoreConnection(dataSource, 'TypeOrmEvidenceRecorder');
    this.decisions = new EntityRowsInsert(dataSource, DecisionRecordEntity);
    this.releases = new EntityRowsInsert(dataSource, ReleaseRecordEntity);
    this.sealAfterWrite = (options.seal ?? 'after-write') === 'after-write';
    this.sealDelayMs = options.sealDelayMs ?? DEFAULT_SEAL_DELAY_MS;
  }

  async recordDecision(record: DecisionRecord): Promise<void> {
    await this.recordDecisions([record]);
  }

  /** All of `records` in one multi-row INSERT. */
  async recordDecisions(records: readonly DecisionRecord[]): Promise<void> {
    if (records.length === 0) return;
    // decisionRecord copies the declared fields only: a caller's object may carry more (raw arguments).
    const rows = records.map((record) => decisionRecord(record, record));
    // Refused now, as the in-memory recorder refuses it (ADR 0075): written, a record the seal cannot hash would hold
    // back the link of every record of its batch.
    for (const row of rows) assertChainable(row);
    await this.insert(this.decisions, rows);
    this.written(EvidenceKind.Decision, rows);
  }

  async recordRelease(record: ReleaseRecord): Promise<void> {
    // releaseRecord copies the declared fields only, as decisionRecord does for decisions.
    const row = releaseRecord(record);
    assertChainable(row);
    await this.insert(this.releases, [row]);
    this.written(EvidenceKind.Release, [row]);
  }

  /** Links every record not linked yet (also those other processes wrote and did not seal). */
  seal(): Promise<SealReport> {
    return this.chain.seal();
  }

  verify(options?: ChainVerifyOptions): Promise<ChainVerification[]> {
    return this.chain.verify(options);
  }

  prune(before: Date): Promise<PruneReport> {
    return this.chain.prune(before);
  }

  /** Resolves once the background seals this process started have finished (before closing the DataSource). */
  async whenSealed(): Promise<void> {
    while (this.sealing !== null) await this.sealing;
  }

  private async insert(into: EntityRowsInsert, rows: object[]): Promise<void> {
    const [sql, parameters] = into.statement(rows);
    // One autocommitted statement (on PostgreSQL a named prepared statement, ADR 0113; on better-sqlite3 never inside
    // an application transaction, whose rollback would take the records with it, ADR 0123): a deadlock victim's rows
    // were rolled back, so it is sent again (ADR 0097).
    await retryDeadlockVictim(() => this.connection.write('Evidence write', sql, parameters));
  }

  private written(kind: EvidenceKind, records: ReadonlyArray<{ readonly id: string; readonly stream: string }>): void {
    if (!this.sealAfterWrite) return;
    this.oldestUnlinkedAt ??= performance.now();
    for (const record of records) {
      const key = `${kind}\u0000${record.stream}`;
      let pending = this.unlinked.get(key);
      if (pending === undefined)
        this.unlinked.set(key, (pending = { kind, stream: record.stream, records: [], overflowed: false }));
      // Bounded: past it, the seal links the stream's pending records from the database (ADR 0062).
      if (pending.records.length < MAX_UNLINKED) pending.records.push(record);
      else pending.overflowed = true;
    }
    this.kick();
  }

  /** One background seal loop per process: it links every record written since, then stops. */
  private kick(): void {
    if (this.sealing !== null) return;
    this.sealing = this.drain().finally(() => {
      this.sealing = null;
      if (this.unlinked.size > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.unlinked.size > 0) {
      // A seal starts once the oldest record waiting has waited `sealDelayMs` (ADR 0079): after a quiet spell
      // it waits the whole delay, so what arrives meanwhile is linked in one batch; under load, whatever
      // arrived during the previous seal has waited that long already, and the next seal starts at once
      // rather than waiting the delay again on top of it. An unref'd timer: a process about to exit does not
      // wait for it (`seal()` links what it left).
      const waited = performance.now() - (this.oldestUnlinkedAt ?? performance.now());
      if (waited < this.sealDelayMs)
        await new Promise<void>((resolve) => setTimeout(resolve, this.sealDelayMs - waited).unref());
      const streams = [...this.unlinked.values()];
      this.unlinked.clear();
      this.oldestUnlinkedAt = null;
      for (const { kind, stream, records, overflowed } of streams) {
        // A DataSource closed meanwhile: what is unlinked stays so, for a later `seal()`.
        if (!this.dataSource.isInitialized) {
          this.oldestUnlinkedAt = null;
          return this.unlinked.clear();
        }
        try {
          await this.chain.link(kind, stream, records);
          if (overflowed) await this.chain.sealStream(kind, stream);
        } catch (error) {
          // The records stay unlinked (verify counts them) until `seal()` links them.
          if (this.dataSource.isInitialized)
            new Logger('Verdict').error(`Could not seal the ${kind} evidence stream ${stream}`, error);
        }
      }
    }
  }
}
