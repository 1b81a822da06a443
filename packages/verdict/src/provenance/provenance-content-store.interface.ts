/** One untrusted text of a parked call's window, kept for the approver or reviewer who decides the call. */
export interface KeptContent {
  /** `sha256` of the text as it entered the context: the `fingerprint` of its `UntrustedContentReference`. */
  readonly fingerprint: string;
  readonly text: string;
}

/**
 * Where the untrusted texts of windows that parked a call for a human (a pending approval receipt, a review
 * item) are kept, by content fingerprint, so that an approver in any process can be shown them through a context
 * release route (ADR 0042): `InMemoryProvenanceContentStore` (default, one process, bounded) and
 * `TypeOrmProvenanceContentStore` (`@verdict/nestjs/typeorm`, shared by every process of the deployment). Never
 * evidence, never the ledger: the texts are deleted once the receipt or item is decided (`forget`), and what
 * outlives its receipt is removed by `prune`.
 *
 * @example VerdictModule.forRoot({ ..., provenance: { contents: new TypeOrmProvenanceContentStore(dataSource) } })
 */
export interface ProvenanceContentStore {
  /** Keeps texts (a text already kept keeps its row; `keptAt` becomes `now`). */
  keep(texts: readonly KeptContent[], now: Date): Promise<void>;
  /** The text with this fingerprint, if it is kept. */
  text(fingerprint: string): Promise<string | undefined>;
  /** Deletes the texts with these fingerprints (the receipt or item that parked them is decided). */
  forget(fingerprints: readonly string[]): Promise<void>;
  /** Deletes the texts kept before `before` (older than any pending receipt or item can be); answers how many. */
  prune(before: Date): Promise<number>;
}

/**
 * The methods of a {@link ProvenanceContentStore} Verdict calls (`prune` is the application's, on a schedule): what
 * the boot asks of `provenance.contents`.
 */
export const PROVENANCE_CONTENT_STORE_METHODS = [
  'keep',
  'text',
  'forget',
] as const satisfies readonly (keyof ProvenanceContentStore)[];
