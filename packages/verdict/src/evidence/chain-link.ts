import { fingerprint, fingerprintString } from '../fingerprints/fingerprint.js';
import { canonicalJson } from '../fingerprints/canonical-json.js';
import { flatCanonicalJson, isFlatCanonical } from '../fingerprints/flat-canonical-json.js';

/** Which evidence a chain links: decision records or release records (each kind chains on its own). */
export const EvidenceKind = { Decision: 'decision', Release: 'release' } as const;
export type EvidenceKind = (typeof EvidenceKind)[keyof typeof EvidenceKind];

/** The `previousHash` of a stream's first record: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * A record's place in its stream's hash chain (docs/evidence.md, "Chain"): `sequence` counts from 1 with
 * no gap, `previousHash` is the hash of the record before it ({@link GENESIS_HASH} for the first), and
 * `hash` is {@link chainHash} of the record with those two.
 */
export interface ChainLink {
  readonly stream: string;
  readonly sequence: number;
  readonly previousHash: string;
  readonly hash: string;
}

/**
 * SHA-256 over the RFC 8785 canonical JSON of the record without its hash: its kind, chain sequence,
 * previous hash and every field of the record (instants as ISO-8601 UTC text).
 */
export function chainHash(
  kind: EvidenceKind,
  record: object,
  link: Pick<ChainLink, 'sequence' | 'previousHash'>,
): string {
  // Records are flat (facts and fingerprints): their canonical text is built directly, the same bytes the
  // general canonicalizer gives; anything else takes the general path.
  const flat = isPlainLink(link) && flatCanonicalJson(record);
  if (flat) return chainHashOfCanonical(kind, flat, link);
  return fingerprint({ kind, sequence: link.sequence, previousHash: link.previousHash, record: chainForm(record) });
}

/**
 * Whether {@link chainHashOfCanonical} may hash a record at `link`: a safe integer sequence and a previous hash of
 * 64 lowercase hex digits (what every sealer writes); anything else must go through {@link chainHash}.
 */
export function isPlainLink(link: Pick<ChainLink, 'sequence' | 'previousHash'>): boolean {
  return Number.isSafeInteger(link.sequence) && /^[0-9a-f]{64}$/.test(link.previousHash);
}

/**
 * {@link chainHash} of a record given as its RFC 8785 canonical JSON text (a flat record: instants as ISO-8601
 * text), at a link {@link isPlainLink} accepts: what a verifier that builds that text from stored columns hashes.
 */
export function chainHashOfCanonical(
  kind: EvidenceKind,
  canonicalRecord: string,
  link: Pick<ChainLink, 'sequence' | 'previousHash'>,
): string {
  return fingerprintString(
    `{"kind":${JSON.stringify(kind)},"previousHash":"${link.previousHash}","record":${canonicalRecord},"sequence":${link.sequence}}`,
  );
}

/**
 * Throws now what {@link chainHash} would throw for `record` (a value that is not canonical JSON), without
 * hashing it: a recorder that links its records later refuses a record when it is written, as one that
 * links at once does (ADR 0075).
 */
export function assertChainable(record: object): void {
  if (!isFlatCanonical(record)) canonicalJson(chainForm(record));
}

/** The record as JSON values: instants as ISO text, `undefined` dropped. */
function chainForm(record: object): Record<string, unknown> {
  // Built as data properties (never by assignment, which would turn a `__proto__` key into a prototype and
  // drop it from the hash): a key the canonicalizer refuses reaches it and throws.
  return Object.fromEntries(
    Object.entries(record)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]),
  );
}

/** Links `records` (in chain order) after `head`: the links a sealer writes. */
export function linkAfter(
  kind: EvidenceKind,
  stream: string,
  head: Pick<ChainLink, 'sequence' | 'hash'>,
  records: readonly object[],
): ChainLink[] {
  const links: ChainLink[] = [];
  let previous = head;
  for (const record of records) {
    const sequence = previous.sequence + 1;
    const previousHash = previous.hash;
    const link = { stream, sequence, previousHash, hash: chainHash(kind, record, { sequence, previousHash }) };
    links.push(link);
    previous = link;
  }
  return links;
}

/** The head of an empty stream: sequence 0, {@link GENESIS_HASH}. */
export const GENESIS_HEAD: Pick<ChainLink, 'sequence' | 'hash'> = Object.freeze({ sequence: 0, hash: GENESIS_HASH });
