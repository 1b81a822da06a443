import { Module } from '@nestjs/common';
import { provenanceLabelsProvider } from '../provenance/provenance-labels.provider.js';
import { RuntimeProvenance } from '../runtimes/runtime-provenance.js';
import { AgentsModelInputGuards } from './agents-model-input-guards.js';
import { AgentsProvenanceTrackers } from './agents-provenance-trackers.js';
import { VerdictAgentsTools } from './verdict-agents-tools.js';
import { VerdictCoreAccessModule } from '../verdict-core-access.module.js';

/**
 * Provides {@link VerdictAgentsTools}, {@link AgentsProvenanceTrackers} and {@link AgentsModelInputGuards}. Import
 * it next to `VerdictModule.forRoot(...)`.
 *
 * @example
 * \@Module({ imports: [VerdictModule.forRoot(options), VerdictAgentsModule] })
 */
@Module({
  imports: [VerdictCoreAccessModule],
  providers: [
    VerdictAgentsTools,
    AgentsProvenanceTrackers,
    AgentsModelInputGuards,
    RuntimeProvenance,
    provenanceLabelsProvider,
  ],
  exports: [VerdictAgentsTools, AgentsProvenanceTrackers, AgentsModelInputGuards],
})
export class VerdictAgentsModule {}
