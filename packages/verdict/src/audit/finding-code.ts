/** What a wiring finding is about: one code per check of the wiring audit (docs/validate.md). */
export const FindingCode = {
  /** An in-memory store (evidence, approvals, claims, rate limits, trajectories, containment) outside tests. */
  InMemoryStore: 'in-memory-store',
  /** No evidence recorder, or the `NullEvidenceRecorder`, outside tests: decisions leave no record. */
  NullEvidenceRecorder: 'null-evidence-recorder',
  /** A capability requires confirmation, but no `@ApprovalEndpoint()` route exists to approve it. */
  ConfirmationWithoutApprovalEndpoint: 'confirmation-without-approval-endpoint',
  /** A controller has a `@ReviewEndpoint()` route, but no `reviewEndpoint` hooks, or no review lane, are configured. */
  ReviewEndpointWithoutHooks: 'review-endpoint-without-hooks',
  /** A registered agent holds a tool that `VerdictTools` neither bound nor guarded. */
  AgentToolNotGuarded: 'agent-tool-not-bound-or-guarded',
  /** A release route lets PII or sensitive data reach a trust zone that is not local. */
  PiiToRemoteZone: 'pii-to-remote-zone',
  /** A capability declared `mutates: true` has no `atMostOnce` policy. */
  MutatingWithoutAtMostOnce: 'mutating-without-at-most-once',
  /** Verdict's migrations are not registered on the stores' DataSource. */
  VerdictMigrationsNotRegistered: 'verdict-migrations-not-registered',
  /** The stores' DataSource has migrations that have not run. */
  PendingMigrations: 'pending-migrations',
  /** A release's behaviour change can refuse what used to work until an option is set (docs/upgrading.md). */
  BehaviourChange: 'behaviour-change',
  /** A capability labels its results per path without declaring `results.format`. */
  ResultPathsWithoutFormat: 'result-paths-without-format',
  /** A capability with provenance argument rules has a DTO class schema, which the boot check cannot read. */
  ProvenanceRulesUnchecked: 'provenance-rules-unchecked',
  /** A provenance argument rule reaches a record whose keys the model writes: the keys are not traced. */
  ProvenanceRecordKeys: 'provenance-record-keys',
  /** A capability or a provenance argument rule runs in shadow mode (`enforce: false`): its refusals are not enforced. */
  ShadowMode: 'shadow-mode',
} as const;

export type FindingCode = (typeof FindingCode)[keyof typeof FindingCode];
