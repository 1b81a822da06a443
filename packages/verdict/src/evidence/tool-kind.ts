/** How a proposal reached Verdict: a bound tool, a guarded (migration bridge) tool, or `VerdictService`. */
export const ToolKind = {
  Bound: 'bound',
  Guarded: 'guarded',
  Service: 'service',
} as const;

export type ToolKind = (typeof ToolKind)[keyof typeof ToolKind];
