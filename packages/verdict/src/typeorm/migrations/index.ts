import type { MigrationInterface } from 'typeorm';
import { CreateDecisionRecords1795987325470 } from './1795987325470-create-decision-records.js';
import { CreateExecutionClaims1795988797706 } from './1795988797706-create-execution-claims.js';
import { CreateRateLimitWindows1795988797707 } from './1795988797707-create-rate-limit-windows.js';
import { CreateApprovalReceipts1795996093417 } from './1795996093417-create-approval-receipts.js';
import { CreateReleaseRecords1796000000000 } from './1796000000000-create-release-records.js';
import { CreateTrajectoryStates1796000000001 } from './1796000000001-create-trajectory-states.js';
import { AddApprovalReceiptPrincipals1796000104000 } from './1796000104000-add-approval-receipt-principals.js';
import { AddExecutionClaimOperatorIdentity1796000109000 } from './1796000109000-add-execution-claim-operator-identity.js';
import { AddApprovalReceiptConversations1796000110300 } from './1796000110300-add-approval-receipt-conversations.js';
import { CreateProvenanceRecords1796000120000 } from './1796000120000-create-provenance-records.js';
import { CreateReviewItems1796000125000 } from './1796000125000-create-review-items.js';
import { AddDecisionRecordActorsAndQueryIndexes1796000130000 } from './1796000130000-add-decision-record-actors-and-query-indexes.js';
import { CreateContainments1796000240000 } from './1796000240000-create-containments.js';
import { AddEvidenceChains1796000131000 } from './1796000131000-add-evidence-chains.js';
import { CreateApprovalReceiptTombstones1796000132000 } from './1796000132000-create-approval-receipt-tombstones.js';
import { ChainEvidenceCheckpoints1796000250034 } from './1796000250034-chain-evidence-checkpoints.js';
import { AddApproverProvenance1796000330033 } from './1796000330033-add-approver-provenance.js';
import { CreateProvenanceContents1797000400000 } from './1797000400000-create-provenance-contents.js';
import { CreateTaintEntries1797000430000 } from './1797000430000-create-taint-entries.js';
import { QueueUnlinkedEvidence1797000500000 } from './1797000500000-queue-unlinked-evidence.js';
import { CreateBudgetWindows1797004000000 } from './1797004000000-create-budget-windows.js';
import { AddApprovalReceiptBatches1797010000000 } from './1797010000000-add-approval-receipt-batches.js';
import { IndexEvidenceStreams1797011000000 } from './1797011000000-index-evidence-streams.js';
import { QueuePendingEvidenceInATable1797012000000 } from './1797012000000-queue-pending-evidence-in-a-table.js';
import { AddReviewItemRequesterActorFingerprints1797013000000 } from './1797013000000-add-review-item-requester-actor-fingerprints.js';
import { CompareDecisionRecordsExactly1797014000000 } from './1797014000000-compare-decision-records-exactly.js';
import { CompareContainmentsExactly1797015000000 } from './1797015000000-compare-containments-exactly.js';
import { CompareClaimBatchAndCorrelationIdsExactly1797020000000 } from './1797020000000-compare-claim-batch-and-correlation-ids-exactly.js';
import { WidenTrajectoryStatesAndContainmentReasons1797030000000 } from './1797030000000-widen-trajectory-states-and-containment-reasons.js';
import { WidenReviewAndReceiptTexts1797040196000 } from './1797040196000-widen-review-and-receipt-texts.js';

/**
 * Every Verdict migration, oldest first. Add them to your DataSource's `migrations` and run them with
 * `migrationsRun: true` or `dataSource.runMigrations()`; never `synchronize` Verdict's tables.
 *
 * @example
 * new DataSource({ type: 'postgres', url, entities: verdictEntities, migrations: verdictMigrations, migrationsRun: true });
 */
export const verdictMigrations: Array<new () => MigrationInterface> = [
  CreateDecisionRecords1795987325470,
  CreateExecutionClaims1795988797706,
  CreateRateLimitWindows1795988797707,
  CreateApprovalReceipts1795996093417,
  CreateReleaseRecords1796000000000,
  CreateTrajectoryStates1796000000001,
  AddApprovalReceiptPrincipals1796000104000,
  AddExecutionClaimOperatorIdentity1796000109000,
  AddApprovalReceiptConversations1796000110300,
  CreateProvenanceRecords1796000120000,
  CreateReviewItems1796000125000,
  AddDecisionRecordActorsAndQueryIndexes1796000130000,
  CreateContainments1796000240000,
  AddEvidenceChains1796000131000,
  CreateApprovalReceiptTombstones1796000132000,
  ChainEvidenceCheckpoints1796000250034,
  AddApproverProvenance1796000330033,
  CreateProvenanceContents1797000400000,
  CreateTaintEntries1797000430000,
  QueueUnlinkedEvidence1797000500000,
  CreateBudgetWindows1797004000000,
  AddApprovalReceiptBatches1797010000000,
  IndexEvidenceStreams1797011000000,
  QueuePendingEvidenceInATable1797012000000,
  AddReviewItemRequesterActorFingerprints1797013000000,
  CompareDecisionRecordsExactly1797014000000,
  CompareContainmentsExactly1797015000000,
  CompareClaimBatchAndCorrelationIdsExactly1797020000000,
  WidenTrajectoryStatesAndContainmentReasons1797030000000,
  WidenReviewAndReceiptTexts1797040196000,
];
