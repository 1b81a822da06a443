// Capabilities as Vercel AI SDK tools (optional peer: ai). docs/runtimes/ai-sdk.md, ADR 0089, 0106, 0107.
export { VerdictAiSdkModule } from './verdict-ai-sdk.module.js';
export { VerdictAiSdkTools, type AiSdkToolOptions } from './verdict-ai-sdk-tools.js';
export { AiSdkProvenanceTracker } from './ai-sdk-provenance-tracker.js';
export { AiSdkProvenanceTrackers } from './ai-sdk-provenance-trackers.js';
export { AiSdkModelInputGuard, type AiSdkModelInputGuardOptions } from './ai-sdk-model-input-guard.js';
export { AiSdkModelInputGuards } from './ai-sdk-model-input-guards.js';
export type { ToolResultRoute } from '../runtimes/tool-result-release.js';
export type { ProvenanceTrackerOptions } from '../provenance/context-labeller.js';
export { aiSdkModelBudget, type AiSdkModelBudgetOptions } from './ai-sdk-model-budget.js';
