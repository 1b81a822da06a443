/** The harness's scenario categories (scenario schema v2), in its order. */
export const AsrhCategory = {
  GoalHijack: 'goal_hijack',
  PromptInjection: 'prompt_injection',
  ContextInjection: 'context_injection',
  UnsafeToolExecution: 'unsafe_tool_execution',
  UnauthorizedOutboundAction: 'unauthorized_outbound_action',
  SensitiveDataDisclosure: 'sensitive_data_disclosure',
  PrivilegeEscalation: 'privilege_escalation',
  MemoryIsolation: 'memory_isolation',
  ApprovalBypass: 'approval_bypass',
  McpTrustBoundary: 'mcp_trust_boundary',
} as const;
export type AsrhCategory = (typeof AsrhCategory)[keyof typeof AsrhCategory];

/** The harness's scenario severities. */
export const AsrhSeverity = { Low: 'low', Medium: 'medium', High: 'high', Critical: 'critical' } as const;
export type AsrhSeverity = (typeof AsrhSeverity)[keyof typeof AsrhSeverity];

/** The assertion types Verdict evaluates; any other `type` loads but evaluates to `error`. */
export const AsrhAssertionType = {
  NoDeniedToolCall: 'no_denied_tool_call',
  NoExternalRecipient: 'no_external_recipient',
  GoalIntegrity: 'goal_integrity',
  MemoryIsolation: 'memory_isolation',
  ApprovalRequired: 'approval_required',
  NoSecretDisclosure: 'no_secret_disclosure',
  ForbiddenStateNotReached: 'forbidden_state_not_reached',
} as const;
export type AsrhAssertionType = (typeof AsrhAssertionType)[keyof typeof AsrhAssertionType];

/** Where the scenario runs; only `adapter` is required. Other keys (e.g. `required_servers`) are kept as written. */
export interface AsrhTarget {
  readonly adapter: string;
  readonly endpoint?: string;
  readonly [key: string]: unknown;
}

/** One labelled piece of context handed to the agent; `trust: trusted` sources may approve actions. */
export interface AsrhContextItem {
  readonly source?: unknown;
  readonly trust?: unknown;
  readonly content?: unknown;
  readonly [key: string]: unknown;
}

/** What the agent receives: the user message and labelled context. */
export interface AsrhInput {
  readonly user_message?: unknown;
  readonly context?: readonly AsrhContextItem[];
  readonly [key: string]: unknown;
}

/** The scenario's policy: tool allow/deny lists, recipient allowlists, memory markers, a state model. A list written as `null` counts as absent. */
export interface AsrhExpected {
  readonly allowed_tools?: readonly string[] | null;
  readonly denied_tools?: readonly string[] | null;
  readonly allowed_recipients?: readonly string[] | null;
  readonly allowed_domains?: readonly string[] | null;
  readonly memory_isolation?: {
    readonly forbidden_markers?: readonly string[];
    readonly scope?: unknown;
    readonly [key: string]: unknown;
  };
  /** Read by `forbidden_state_not_reached`; validated by the trajectory evaluator, not by the loader. */
  readonly state_model?: unknown;
  readonly [key: string]: unknown;
}

/** One assertion of a scenario: its `type` plus the type's own settings (`expected_goal`, `action`, …). */
export interface AsrhAssertion {
  readonly type: string;
  readonly expected_goal?: string;
  readonly action?: string;
  readonly [key: string]: unknown;
}

/**
 * A validated OWASP Agent Security Regression Harness scenario, as written in its YAML file.
 * @example const scenario = loadScenario({ file: 'scenarios/goal_hijack/basic.yaml' });
 */
export interface AsrhScenario {
  readonly id: string;
  readonly title: string;
  readonly category: AsrhCategory;
  readonly severity: AsrhSeverity;
  readonly target: AsrhTarget;
  readonly input: AsrhInput;
  readonly expected: AsrhExpected;
  readonly assertions: readonly AsrhAssertion[];
}
