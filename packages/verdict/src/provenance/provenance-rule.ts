/** What a provenance policy does when untrusted content influenced a proposal. */
export const ProvenanceRule = {
  /** Proceed: the stage records the finding and permits. */
  Allow: 'allow',
  /** A human approves this exact proposal first, through verified confirmation (docs/approvals.md). */
  RequireConfirmation: 'require_confirmation',
  /** Refuse the proposal. */
  Deny: 'deny',
  /** For an argument: its value must not come from untrusted content; refused otherwise (as `deny`). */
  TrustedOnly: 'trusted_only',
} as const;

export type ProvenanceRule = (typeof ProvenanceRule)[keyof typeof ProvenanceRule];

const RULES: ReadonlySet<unknown> = new Set(Object.values(ProvenanceRule));

/** Whether `value` is one of the {@link ProvenanceRule}s. */
export function isProvenanceRule(value: unknown): value is ProvenanceRule {
  return RULES.has(value);
}

/** How severe a rule's outcome is: the most severe finding decides. */
export function severityOf(rule: ProvenanceRule): number {
  return rule === ProvenanceRule.Allow ? 0 : rule === ProvenanceRule.RequireConfirmation ? 1 : 2;
}
