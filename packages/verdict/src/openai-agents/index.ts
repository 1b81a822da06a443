// Capabilities as OpenAI Agents JS function tools (optional peer: @openai/agents). docs/runtimes/openai-agents.md, ADR 0090, 0106, 0107.
export { VerdictAgentsModule } from './verdict-agents.module.js';
export { VerdictAgentsTools, type AgentsToolOptions } from './verdict-agents-tools.js';
export { AgentsProvenanceTracker } from './agents-provenance-tracker.js';
export { AgentsProvenanceTrackers } from './agents-provenance-trackers.js';
export { AgentsModelInputGuard, type AgentsModelInputGuardOptions } from './agents-model-input-guard.js';
export { AgentsModelInputGuards } from './agents-model-input-guards.js';
export type { ToolResultRoute } from '../runtimes/tool-result-release.js';
export type { ProvenanceTrackerOptions } from '../provenance/context-labeller.js';
export { agentsModelBudget, type AgentsModelBudget, type AgentsModelBudgetOptions } from './agents-model-budget.js';
