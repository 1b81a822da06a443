import type { DataSource } from 'typeorm';
import type { DecisionRecord } from '../evidence/decision-record.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { type ReleaseRecord, releaseRecord } from '../evidence/release-record.js';
import { DecisionRecordEntity } from './decision-record.entity.js';
import { ReleaseRecordEntity } from './release-record.entity.js';

/**
 * Writes each decision record as one row of `verdict_decision_records`, and each release record as one
 * row of `verdict_release_records`: a single INSERT, no read-back, no transaction of its own. A failed
 * write rejects, so the pipeline can stop the action and a release releases nothing.
 * The DataSource needs `verdictEntities` and `verdictMigrations`; on MySQL/MariaDB it must use
 * `timezone: 'Z'` so timestamps are stored as UTC.
 *
 * @example
 * VerdictModule.forRoot({ evidence: new TypeOrmEvidenceRecorder(dataSource) });
 */
export class TypeOrmEvidenceRecorder implements EvidenceRecorder {
  constructor(private readonly dataSource: DataSource) {}

  async recordDecision(record: DecisionRecord): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(DecisionRecordEntity)
      .values(row(record))
      .updateEntity(false)
      .callListeners(false)
      .execute();
  }

  async recordRelease(record: ReleaseRecord): Promise<void> {
    // releaseRecord copies the declared fields only, as row() does for decisions.
    await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(ReleaseRecordEntity)
      .values(releaseRecord(record))
      .updateEntity(false)
      .callListeners(false)
      .execute();
  }
}

/** Copies the declared fields only: a caller's object may carry more (raw arguments) than its type says. */
function row(record: DecisionRecord): DecisionRecord {
  return {
    id: record.id,
    correlationId: record.correlationId,
    sequence: record.sequence,
    capability: record.capability,
    toolKind: record.toolKind,
    stage: record.stage,
    disposition: record.disposition,
    reason: record.reason,
    argumentsFingerprint: record.argumentsFingerprint,
    toolCallFingerprint: record.toolCallFingerprint,
    actorFingerprint: record.actorFingerprint,
    targetPolicy: record.targetPolicy,
    targetStrategy: record.targetStrategy,
    proposalIdentityFingerprint: record.proposalIdentityFingerprint,
    executionIdentityFingerprint: record.executionIdentityFingerprint,
    identityMatch: record.identityMatch,
    approvalPhase: record.approvalPhase,
    approvalOutcome: record.approvalOutcome,
    receiptFingerprint: record.receiptFingerprint,
    rateLimitKeyFingerprint: record.rateLimitKeyFingerprint,
    rateLimitLimit: record.rateLimitLimit,
    rateLimitRemaining: record.rateLimitRemaining,
    rateLimitResetAt: record.rateLimitResetAt,
    claimFingerprint: record.claimFingerprint,
    claimStatus: record.claimStatus,
    claimAttempt: record.claimAttempt,
    recordedAt: record.recordedAt,
  };
}
