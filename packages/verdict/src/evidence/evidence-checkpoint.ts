import { createHmac, createPrivateKey, createPublicKey, sign, timingSafeEqual, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { canonicalJson } from '../fingerprints/canonical-json.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import type { EvidenceKind } from './chain-link.js';

/** Why a checkpoint was written: after a sealed batch, or as the anchor left by a prune. */
export const CheckpointPurpose = { Seal: 'seal', Prune: 'prune' } as const;
export type CheckpointPurpose = (typeof CheckpointPurpose)[keyof typeof CheckpointPurpose];

/**
 * A signed statement that stream `stream` of `kind` reached `sequence` with head hash `hash`
 * (docs/evidence.md, "Checkpoints"). Whoever can rewrite the evidence table can recompute every
 * hash; without the key they cannot forge a checkpoint, so everything up to it is pinned. Checkpoints
 * chain too (ADR 0034): each names its place in the stream's checkpoint chain (`checkpointSequence`, from 1)
 * and the {@link checkpointHash} of its predecessor, both signed, so a deleted, replaced, reordered or
 * inserted checkpoint breaks the chain of the ones after it.
 */
export interface EvidenceCheckpoint {
  readonly id: string;
  readonly kind: EvidenceKind;
  readonly stream: string;
  /** The chain sequence of the record it pins. */
  readonly sequence: number;
  /** The chain hash of the record it pins. */
  readonly hash: string;
  /** Its place in the stream's checkpoint chain (from 1); `null` for a checkpoint written before checkpoints chained. */
  readonly checkpointSequence: number | null;
  /** {@link checkpointHash} of the checkpoint before it (64 zeros, `GENESIS_HASH`, for the first); `null` as above. */
  readonly previousCheckpointHash: string | null;
  readonly purpose: CheckpointPurpose;
  readonly algorithm: CheckpointAlgorithm;
  readonly keyId: string;
  /** base64 */
  readonly signature: string;
  /** UTC. */
  readonly createdAt: Date;
}

/** `hmac-sha256` (a shared secret) or `ed25519` (a key pair: verifiers need only the public key). */
export type CheckpointAlgorithm = 'hmac-sha256' | 'ed25519';

/**
 * The application's checkpoint key, through `node:crypto`. An Ed25519 key may omit `privateKey` where a
 * process only verifies (the operator CLI); such a process writes no checkpoint and cannot prune.
 *
 * @example
 * const key: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'evidence-2026', secret: process.env.EVIDENCE_KEY! };
 */
export type CheckpointKey =
  | { readonly algorithm: 'hmac-sha256'; readonly keyId: string; readonly secret: string | Buffer }
  | {
      readonly algorithm: 'ed25519';
      readonly keyId: string;
      readonly publicKey: KeyObject | string;
      readonly privateKey?: KeyObject | string;
    };

type Signed = Pick<
  EvidenceCheckpoint,
  | 'kind'
  | 'stream'
  | 'sequence'
  | 'hash'
  | 'checkpointSequence'
  | 'previousCheckpointHash'
  | 'purpose'
  | 'algorithm'
  | 'keyId'
>;

/** The fields a checkpoint signs: all but its id, signature and time (a pre-chain checkpoint signed no chain fields). */
function signedFields(checkpoint: Signed): Record<string, string | number> {
  const { kind, stream, sequence, hash, checkpointSequence, previousCheckpointHash, purpose, algorithm, keyId } =
    checkpoint;
  const fields = { kind, stream, sequence, hash, purpose, algorithm, keyId };
  return checkpointSequence === null || previousCheckpointHash === null
    ? fields
    : { ...fields, checkpointSequence, previousCheckpointHash };
}

/** What is signed: the canonical JSON of {@link signedFields}. */
function signedBytes(checkpoint: Signed): Buffer {
  return Buffer.from(canonicalJson(signedFields(checkpoint)), 'utf8');
}

/**
 * What the next checkpoint of the stream commits to: sha256 of the RFC 8785 canonical JSON of the
 * checkpoint's signed fields and its signature. A checkpoint changed in any field (or re-signed) has
 * another hash, so its successor no longer follows it.
 */
export function checkpointHash(checkpoint: Signed & Pick<EvidenceCheckpoint, 'signature'>): string {
  return fingerprint({ ...signedFields(checkpoint), signature: checkpoint.signature });
}

/** Whether `key` can sign (HMAC always; Ed25519 only with its private key). */
export function canSign(key: CheckpointKey): boolean {
  return key.algorithm === 'hmac-sha256' || key.privateKey !== undefined;
}

/** The base64 signature of `checkpoint` under `key`. @throws Error for an Ed25519 key without its private key. */
export function signCheckpoint(
  key: CheckpointKey,
  checkpoint: Omit<Signed, 'algorithm' | 'keyId'>,
): Signed & {
  signature: string;
} {
  const signed = { ...checkpoint, algorithm: key.algorithm, keyId: key.keyId };
  const bytes = signedBytes(signed);
  if (key.algorithm === 'hmac-sha256')
    return { ...signed, signature: createHmac('sha256', key.secret).update(bytes).digest('base64') };
  if (key.privateKey === undefined)
    throw new Error(`Checkpoint key ${key.keyId} has no Ed25519 private key: this process can verify, not sign.`);
  const privateKey = typeof key.privateKey === 'string' ? createPrivateKey(key.privateKey) : key.privateKey;
  return { ...signed, signature: sign(null, bytes, privateKey).toString('base64') };
}

/** Whether `checkpoint`'s signature is `key`'s over its fields (a different key id or algorithm is not). */
export function checkpointSignatureHolds(key: CheckpointKey, checkpoint: EvidenceCheckpoint): boolean {
  if (checkpoint.algorithm !== key.algorithm || checkpoint.keyId !== key.keyId) return false;
  const bytes = signedBytes(checkpoint);
  const signature = Buffer.from(checkpoint.signature, 'base64');
  if (key.algorithm === 'hmac-sha256') {
    const expected = createHmac('sha256', key.secret).update(bytes).digest();
    return expected.length === signature.length && timingSafeEqual(expected, signature);
  }
  const publicKey = typeof key.publicKey === 'string' ? createPublicKey(key.publicKey) : key.publicKey;
  try {
    return verify(null, bytes, publicKey, signature);
  } catch {
    return false;
  }
}
