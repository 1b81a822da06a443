/**
 * The taint ledger (docs/provenance.md, "Taint that survives writes"): the canonical value fingerprints
 * (`candidateFingerprint`) of the arguments proposed under untrusted influence, per tenant, until they expire.
 * A value recorded here stays tainted when it comes back through any result, trusted or not, in any process
 * that shares the ledger. Adapters: `InMemoryTaintLedger` (tests, one process) and `TypeOrmTaintLedger`
 * (`@verdict/nestjs/typeorm`). Unique (tenant, fingerprint); a failure rejects and stops the proposal.
 *
 * @example VerdictModule.forRoot({ ..., provenance: { taint: { ledger: new TypeOrmTaintLedger(dataSource) } } })
 */
export interface TaintLedger {
  /**
   * Records `fingerprints` for `tenant` (a `taintTenantKey`) until `expiresAt`, in one statement: a
   * fingerprint already recorded keeps the later of its two expiries.
   */
  record(tenant: string, fingerprints: readonly string[], expiresAt: Date): Promise<void>;
  /** Which of `fingerprints` are recorded for `tenant` and not expired at `now`: one indexed statement. */
  tainted(tenant: string, fingerprints: readonly string[], now: Date): Promise<ReadonlySet<string>>;
  /** Deletes the entries expired at `now` (`expiresAt <= now`); returns how many. */
  prune(now: Date): Promise<number>;
}

/** Injection token of the configured {@link TaintLedger}. */
export const TaintLedger = Symbol('TaintLedger');
