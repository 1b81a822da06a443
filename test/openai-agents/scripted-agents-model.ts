// The scripted Agents model lives in the testing kit, where the multi-process fixtures use it too.
export { type AgentsTurn, ScriptedAgentsModel } from '@verdict/testing-kit';
