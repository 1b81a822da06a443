/** Options of {@link WiringAudit.run}. */
export interface WiringAuditOptions {
  /**
   * Whether the application runs as a test: in-memory stores and the null evidence recorder are then
   * expected and not reported. Default: `process.env.NODE_ENV === 'test'`.
   */
  readonly testEnvironment?: boolean;
  /** Trust zones that are local: a route releasing PII to any other zone is reported. Default: `['local-machine']`. */
  readonly localTrustZones?: readonly string[];
}

/** The trust zones that count as local when none are given. */
export const DEFAULT_LOCAL_TRUST_ZONES: readonly string[] = ['local-machine'];
