import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
export function assertRulesCanSeeCandidates(_definition: CapabilityDefinition, _fail: (message: string) => void): void {}
