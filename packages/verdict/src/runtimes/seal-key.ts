import { isUint8Array } from 'node:util/types';
import { VerdictConfigurationError } from '../errors/configuration.error.js';

/** The fewest bytes of a guard's seal key: an HMAC-SHA-256 key shorter than its 32-byte output weakens it. */
export const MIN_SEAL_KEY_BYTES = 32;

/**
 * The bytes of a model-input guard's `sealKey`: a `Uint8Array` (a `Buffer`) of at least 32 bytes, or a string of
 * at least 32 UTF-8 bytes, read as its UTF-8 bytes — as a string was always read (a hex string is not decoded), so
 * that seals made under it still verify.
 * @throws VerdictConfigurationError naming `sealKey` and what it got (its type and length, never its bytes) for
 *   anything else, when the guard is built.
 */
export function sealKeyBytes(key: unknown): Buffer {
  // `isUint8Array`, not `instanceof`: a key from another realm (a `vm` context, a test runner) is one too.
  const bytes = isUint8Array(key) || typeof key === 'string' ? Buffer.from(key) : undefined;
  if (bytes !== undefined && bytes.length >= MIN_SEAL_KEY_BYTES) return bytes;
  throw new VerdictConfigurationError(
    `A model-input guard's \`sealKey\` is a Uint8Array of at least ${MIN_SEAL_KEY_BYTES} bytes ` +
      `(randomBytes(${MIN_SEAL_KEY_BYTES})) or a string of at least ${MIN_SEAL_KEY_BYTES} UTF-8 bytes, or left out ` +
      `for a random key per guard; got ${described(key, bytes)}. The guard was not built.`,
    { option: 'sealKey' },
  );
}

/** What a refused key was, without its bytes. */
function described(key: unknown, bytes: Buffer | undefined): string {
  if (bytes !== undefined) return `${typeof key === 'string' ? 'a string' : 'a Uint8Array'} of ${bytes.length} bytes`;
  if (key === null) return 'null';
  if (Array.isArray(key)) return 'an array';
  // The class of an object (`ArrayBuffer`, `Uint16Array`) names no secret; its contents are never read.
  if (typeof key === 'object') return `an object (${Object.prototype.toString.call(key).slice(8, -1)})`;
  return `a ${typeof key}`;
}
