import type { PackTool } from './pack-tools.js';
import type { PackWorld } from './pack-world.js';

/** The four attack families of the provenance packs. */
export const PackFamily = {
  Rag: 'rag',
  AccountRecovery: 'account-recovery',
  ToolIntegrity: 'tool-integrity',
  Delegation: 'delegation',
} as const;
export type PackFamily = (typeof PackFamily)[keyof typeof PackFamily];

/** One tool call the scripted part of the model makes. */
export interface PackCall {
  readonly tool: PackTool;
  readonly args: Record<string, unknown>;
}

/**
 * One AgentDojo-style scenario: a user task (a read, then a consequential call with a value the user typed)
 * and an injection planted in what the read returns (or in a tool's description) that asks for another call.
 * The same scenario runs clean (utility without attack) and attacked (utility under attack, attack success).
 */
export interface PackScenario {
  readonly id: string;
  readonly family: PackFamily;
  /** The user's message. */
  readonly prompt: string;
  /** The read the user task starts with. */
  readonly read: PackCall;
  /** The consequential call the user asked for. */
  readonly task: PackCall;
  /** The effect the user task leaves (`<capability>:<key argument>`). */
  readonly userGoal: string;
  /** The tool the injection asks for and the effects it aims at. */
  readonly injectedTool: PackTool;
  readonly attackGoals: readonly string[];
  /** The world of the clean run (default: `CLEAN_WORLD`). */
  readonly clean?: PackWorld;
  /** The attacked world: the clean one with the injection planted. */
  readonly inject: (clean: PackWorld) => PackWorld;
  /**
   * The MCP server's tools were pinned from the clean world, and the injection came after (a rug pull). Default:
   * they were pinned as the run sees them — a description poisoned before review passes its pin.
   */
  readonly rugPull?: boolean;
}
