import { ApprovalReceiptEntity } from './approval-receipt.entity.js';
import { DecisionRecordEntity } from './decision-record.entity.js';
import { ExecutionClaimEntity } from './execution-claim.entity.js';
import { RateLimitWindowEntity } from './rate-limit-window.entity.js';
import { ReleaseRecordEntity } from './release-record.entity.js';
import { TrajectoryStateEntity } from './trajectory-state.entity.js';
import { ContainmentEntity } from './containment.entity.js';
import { ProvenanceRecordEntity } from './provenance-record.entity.js';
import { ReviewItemEntity } from './review-item.entity.js';
import { ProvenanceContentEntity } from './provenance-content.entity.js';
import { TaintEntryEntity } from './taint-entry.entity.js';
import { BudgetWindowEntity } from './budget-window.entity.js';

/**
 * Every Verdict entity. Add them to your DataSource's `entities` (or `TypeOrmModule.forRoot`).
 *
 * @example
 * new DataSource({ type: 'better-sqlite3', database: 'app.sqlite', entities: [...appEntities, ...verdictEntities], migrations: verdictMigrations });
 */
export const verdictEntities: Array<new () => object> = [
  DecisionRecordEntity,
  ExecutionClaimEntity,
  RateLimitWindowEntity,
  BudgetWindowEntity,
  ApprovalReceiptEntity,
  ReleaseRecordEntity,
  TrajectoryStateEntity,
  ContainmentEntity,
  ProvenanceRecordEntity,
  ReviewItemEntity,
  ProvenanceContentEntity,
  TaintEntryEntity,
];
