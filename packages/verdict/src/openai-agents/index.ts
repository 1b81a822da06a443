// Capabilities as OpenAI Agents JS function tools (optional peer: @openai/agents). docs/runtimes/openai-agents.md, ADR 0090.
export { VerdictAgentsModule } from './verdict-agents.module.js';
export { VerdictAgentsTools, type AgentsToolOptions } from './verdict-agents-tools.js';
