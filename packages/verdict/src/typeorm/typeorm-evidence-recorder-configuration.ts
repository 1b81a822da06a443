import { createPrivateKey, createPublicKey, KeyObject } from 'node:crypto';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { TypeOrmEvidenceRecorderOptions } from './typeorm-evidence-recorder.js';

/** The values of `seal`. */
const SEALS: readonly unknown[] = ['after-write', 'manual'];
/** The longest delay a timer keeps: Node fires a longer one after 1 ms. */
const MAX_SEAL_DELAY_MS = 2_147_483_647;

/**
 * Construction-time checks of {@link TypeOrmEvidenceRecorderOptions}, whose bad values would otherwise be misread
 * without a word: a `seal` other than `after-write` or `manual` (read from an environment variable, say) turned the
 * background seal off, so records stayed unlinked and `verify` still passed; a `sealDelayMs` that is not a finite
 * number of milliseconds from 0 to 2,147,483,647 (a timer's longest) sealed at once or never waited; a
 * `checkpointKey` of another algorithm was taken for an Ed25519 key without its private key, so nothing was signed.
 * A `checkpointKey` needs a non-blank `keyId`; with `hmac-sha256`, a non-empty `secret` (an empty one signs with a
 * key anyone knows); with `ed25519`, a `publicKey` and optionally a `privateKey` that are Ed25519 keys (a KeyObject
 * or PEM) of one key pair (a private key given with another pair's public key signed checkpoints `verify` refused).
 *
 * @throws VerdictConfigurationError naming the option at fault.
 */
export function assertEvidenceRecorderConfigured(options: TypeOrmEvidenceRecorderOptions): void {
  if (typeof options !== 'object' || options === null)
    fail(`options are ${String(options)}: pass { checkpointKey, seal, sealDelayMs }, or leave them out.`);
  const { seal, sealDelayMs, checkpointKey } = options;
  if (seal !== undefined && !SEALS.includes(seal))
    fail(`\`seal\` is ${quoted(seal)}: it must be 'after-write' (the default) or 'manual'.`);
  if (
    sealDelayMs !== undefined &&
    (typeof sealDelayMs !== 'number' ||
      !Number.isFinite(sealDelayMs) ||
      sealDelayMs < 0 ||
      sealDelayMs > MAX_SEAL_DELAY_MS)
  )
    fail(
      `\`sealDelayMs\` is ${quoted(sealDelayMs)}: it must be a finite number of milliseconds from 0 to ${MAX_SEAL_DELAY_MS} (default 200).`,
    );
  if (checkpointKey !== undefined) assertCheckpointKey(checkpointKey);
}

function assertCheckpointKey(key: TypeOrmEvidenceRecorderOptions['checkpointKey']): void {
  if (typeof key !== 'object' || key === null)
    fail('`checkpointKey` is not an object: pass { algorithm, keyId, … } (docs/evidence.md, "Checkpoints").');
  const { algorithm, keyId } = key as { algorithm?: unknown; keyId?: unknown };
  if (algorithm !== 'hmac-sha256' && algorithm !== 'ed25519')
    fail(`\`checkpointKey.algorithm\` is ${quoted(algorithm)}: it must be 'hmac-sha256' or 'ed25519'.`);
  if (typeof keyId !== 'string' || keyId.trim() === '')
    fail('`checkpointKey.keyId` is blank or not a string: name the key (it is signed into every checkpoint).');
  if (key.algorithm === 'hmac-sha256') {
    const { secret } = key as { secret?: unknown };
    if (!((typeof secret === 'string' || Buffer.isBuffer(secret)) && secret.length > 0))
      fail('`checkpointKey.secret` is empty or not a string or Buffer: an HMAC-SHA256 key needs its secret.');
    return;
  }
  if (!isEd25519(key.publicKey, 'public'))
    fail('`checkpointKey.publicKey` is not an Ed25519 public key (a KeyObject or PEM): verifying needs it.');
  if (key.privateKey !== undefined && !isEd25519(key.privateKey, 'private'))
    fail('`checkpointKey.privateKey` is not an Ed25519 private key (a KeyObject or PEM): leave it out to only verify.');
  if (key.privateKey !== undefined && !isOnePair(key.privateKey, key.publicKey))
    fail(
      "`checkpointKey.privateKey` and `checkpointKey.publicKey` are not one key pair: the checkpoints it signs would fail `verify` (checkpoint_signature). Give the private key's own public key.",
    );
}

/**
 * Whether `privateKey`'s public key is `publicKey` (both checked Ed25519 keys): their SPKI DER encodings are
 * compared, never shown. A mismatched pair signed every checkpoint with a key `verify` refused, which read as tampering
 * (`checkpoint_signature`), and every prune refused thereafter.
 */
function isOnePair(privateKey: KeyObject | string, publicKey: KeyObject | string): boolean {
  try {
    return spki(privateKey).equals(spki(publicKey));
  } catch {
    return false;
  }
}

/** The SPKI DER of `key`'s public key (a public KeyObject as it is; a private one, or PEM, its public part). */
function spki(key: KeyObject | string): Buffer {
  const object = key instanceof KeyObject && key.type === 'public' ? key : createPublicKey(key);
  return object.export({ type: 'spki', format: 'der' });
}

/** Whether `key` is an Ed25519 key of `type`, given as a KeyObject or as PEM (a private key's PEM holds its public). */
function isEd25519(key: unknown, type: 'public' | 'private'): boolean {
  try {
    const object =
      key instanceof KeyObject
        ? key
        : typeof key === 'string' && key.trim() !== ''
          ? type === 'public'
            ? createPublicKey(key)
            : createPrivateKey(key)
          : null;
    return object !== null && object.asymmetricKeyType === 'ed25519' && (type === 'public' || object.type === type);
  } catch {
    return false;
  }
}

/** A bad value as a message shows it: strings quoted, so a blank one shows. */
function quoted(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function fail(message: string): never {
  throw new VerdictConfigurationError(`TypeOrmEvidenceRecorder: ${message}`);
}
