import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { ChainVerification } from '../evidence/chain-verification.js';
import { EvidenceKind } from '../evidence/chain-link.js';
import { type DecisionRecord, decisionRecord } from '../evidence/decision-record.js';
import type { CheckpointKey } from '../evidence/evidence-checkpoint.js';
import type { EvidenceChain, PruneReport, SealReport } from '../evidence/evidence-chain.interface.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { type ReleaseRecord, releaseRecord } from '../evidence/release-record.js';
import { DecisionRecordEntity } from './decision-record.entity.js';
import { ReleaseRecordEntity } from './release-record.entity.js';
import { TypeOrmEvidenceChain } from './typeorm-evidence-chain.js';

/** Options of {@link TypeOrmEvidenceRecorder}. */
export interface TypeOrmEvidenceRecorderOptions {
  /**
   * Signs a checkpoint after every sealed batch and anchors prunes (docs/evidence.md, "Checkpoints").
   * Default: none (chains are still hashed and verified; nothing is signed, and `prune` refuses).
   */
  readonly checkpointKey?: CheckpointKey;
  /**
   * When records are chained: `after-write` (default) seals the streams this process wrote right after
   * each write, in the background, one seal at a time per process; `manual` leaves it to `seal()`
   * (`verdict evidence seal`, a scheduled job). Until sealed, a record is not tamper-evident (ADR 0021).
   */
  readonly seal?: 'after-write' | 'manual';
}

/**
 * Writes each decision record as one row of `verdict_decision_records`, and each release record as one
 * row of `verdict_release_records`: a single INSERT (one multi-row INSERT for a batch), no read-back, no
 * transaction of its own. A failed write rejects, so the pipeline can stop the action and a release
 * releases nothing. Records are appended unchained and linked into their stream's hash chain by a seal
 * (ADR 0021), which by default runs in the background after each write.
 * The DataSource needs `verdictEntities` and `verdictMigrations`; on MySQL/MariaDB it must use
 * `timezone: 'Z'` so timestamps are stored as UTC.
 *
 * @example
 * VerdictModule.forRoot({ evidence: new TypeOrmEvidenceRecorder(dataSource, { checkpointKey }) });
 */
export class TypeOrmEvidenceRecorder implements EvidenceRecorder, EvidenceChain {
  private readonly chain: TypeOrmEvidenceChain;
  private readonly sealAfterWrite: boolean;
  private readonly dirty = new Map<string, { kind: EvidenceKind; stream: string }>();
  private sealing: Promise<void> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    options: TypeOrmEvidenceRecorderOptions = {},
  ) {
    this.chain = new TypeOrmEvidenceChain(dataSource, options.checkpointKey);
    this.sealAfterWrite = (options.seal ?? 'after-write') === 'after-write';
  }

  async recordDecision(record: DecisionRecord): Promise<void> {
    await this.recordDecisions([record]);
  }

  /** All of `records` in one multi-row INSERT. */
  async recordDecisions(records: readonly DecisionRecord[]): Promise<void> {
    if (records.length === 0) return;
    // decisionRecord copies the declared fields only: a caller's object may carry more (raw arguments).
    const rows = records.map((record) => decisionRecord(record, record));
    await this.insert(DecisionRecordEntity, rows);
    this.written(EvidenceKind.Decision, rows);
  }

  async recordRelease(record: ReleaseRecord): Promise<void> {
    // releaseRecord copies the declared fields only, as decisionRecord does for decisions.
    const row = releaseRecord(record);
    await this.insert(ReleaseRecordEntity, [row]);
    this.written(EvidenceKind.Release, [row]);
  }

  /** Chains every record not chained yet (also those other processes wrote and did not seal). */
  seal(): Promise<SealReport> {
    return this.chain.seal();
  }

  verify(): Promise<ChainVerification[]> {
    return this.chain.verify();
  }

  prune(before: Date): Promise<PruneReport> {
    return this.chain.prune(before);
  }

  /** Resolves once the background seals this process started have finished (before closing the DataSource). */
  async whenSealed(): Promise<void> {
    while (this.sealing !== null) await this.sealing;
  }

  private async insert(
    entity: typeof DecisionRecordEntity | typeof ReleaseRecordEntity,
    rows: object[],
  ): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(entity)
      .values(rows)
      .updateEntity(false)
      .callListeners(false)
      .execute();
  }

  private written(kind: EvidenceKind, records: ReadonlyArray<{ readonly stream: string }>): void {
    if (!this.sealAfterWrite) return;
    for (const { stream } of records) this.dirty.set(`${kind}\u0000${stream}`, { kind, stream });
    this.kick();
  }

  /** One background seal loop per process: it drains every stream written since, then stops. */
  private kick(): void {
    if (this.sealing !== null) return;
    this.sealing = this.drain().finally(() => {
      this.sealing = null;
      if (this.dirty.size > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.dirty.size > 0) {
      const streams = [...this.dirty.values()];
      this.dirty.clear();
      for (const { kind, stream } of streams) {
        // A DataSource closed meanwhile: what is unchained stays so, for the next process's seal.
        if (!this.dataSource.isInitialized) return this.dirty.clear();
        try {
          await this.chain.sealStream(kind, stream);
        } catch (error) {
          // The records stay unchained (verify counts them) and the next write, or `seal()`, retries.
          if (this.dataSource.isInitialized)
            new Logger('Verdict').error(`Could not seal the ${kind} evidence stream ${stream}`, error);
        }
      }
    }
  }
}
