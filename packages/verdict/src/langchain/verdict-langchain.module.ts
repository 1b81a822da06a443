import { Module } from '@nestjs/common';
import { ModelInputGuards } from './model-input-guards.js';
import { VerdictTools } from './verdict-tools.js';
import { ProvenanceTrackers } from './provenance-trackers.js';
import { provenanceLabelsProvider } from '../provenance/provenance-labels.provider.js';
import { QuarantinedReaders } from './quarantined-readers.js';
import { PlanModes } from './plan-modes.js';
import { ApprovalBatches } from './approval-batches.js';
import { ModelBudgets } from './model-budgets.js';
import { VerdictCoreAccessModule } from '../verdict-core-access.module.js';

/** The LangChain mechanisms this module provides and exports. */
const mechanisms = [
  VerdictTools,
  ModelInputGuards,
  ProvenanceTrackers,
  QuarantinedReaders,
  PlanModes,
  ApprovalBatches,
  ModelBudgets,
];

/**
 * Provides {@link VerdictTools}, {@link ModelInputGuards}, {@link ProvenanceTrackers}, {@link QuarantinedReaders}, {@link PlanModes}, {@link ApprovalBatches} and {@link ModelBudgets}. Import it next to `VerdictModule.forRoot(...)`.
 *
 * @example
 * \@Module({ imports: [VerdictModule.forRoot(options), VerdictLangChainModule] })
 */
@Module({
  imports: [VerdictCoreAccessModule],
  providers: [...mechanisms, provenanceLabelsProvider],
  exports: mechanisms,
})
export class VerdictLangChainModule {}
