// Capabilities as Vercel AI SDK tools (optional peer: ai). docs/runtimes/ai-sdk.md, ADR 0089.
export { VerdictAiSdkModule } from './verdict-ai-sdk.module.js';
export { VerdictAiSdkTools, type AiSdkToolOptions } from './verdict-ai-sdk-tools.js';
export { aiSdkModelBudget, type AiSdkModelBudgetOptions } from './ai-sdk-model-budget.js';
