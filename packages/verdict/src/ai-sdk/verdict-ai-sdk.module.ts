import { Module } from '@nestjs/common';
import { provenanceLabelsProvider } from '../provenance/provenance-labels.provider.js';
import { RuntimeProvenance } from '../runtimes/runtime-provenance.js';
import { AiSdkProvenanceTrackers } from './ai-sdk-provenance-trackers.js';
import { AiSdkModelInputGuards } from './ai-sdk-model-input-guards.js';
import { VerdictAiSdkTools } from './verdict-ai-sdk-tools.js';
import { VerdictCoreAccessModule } from '../verdict-core-access.module.js';

/**
 * Provides {@link VerdictAiSdkTools}, {@link AiSdkProvenanceTrackers} and {@link AiSdkModelInputGuards}. Import
 * it next to `VerdictModule.forRoot(...)`.
 *
 * @example
 * \@Module({ imports: [VerdictModule.forRoot(options), VerdictAiSdkModule] })
 */
@Module({
  imports: [VerdictCoreAccessModule],
  providers: [
    VerdictAiSdkTools,
    AiSdkProvenanceTrackers,
    AiSdkModelInputGuards,
    RuntimeProvenance,
    provenanceLabelsProvider,
  ],
  exports: [VerdictAiSdkTools, AiSdkProvenanceTrackers, AiSdkModelInputGuards],
})
export class VerdictAiSdkModule {}
