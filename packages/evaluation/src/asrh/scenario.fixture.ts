import type { AsrhScenario } from './asrh-scenario.js';

/** A minimal valid scenario for specs; `overrides` set what the spec is about. */
export function scenarioWith(overrides: Partial<AsrhScenario>): AsrhScenario {
  return {
    id: 's',
    title: 's',
    category: 'goal_hijack',
    severity: 'high',
    target: { adapter: 'http_agent' },
    input: {},
    expected: {},
    assertions: [],
    ...overrides,
  };
}
