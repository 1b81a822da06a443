import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { MIN_SEAL_KEY_BYTES, sealKeyBytes } from './seal-key.js';

const SEAL = /^[0-9a-f]{64}$/;

/**
 * An HMAC-SHA-256 of a destination and some content under a key only the model-input guard holds: what the
 * guards of every runtime seal what they released or what the model answered with. The seal holds no data; a
 * copy of it does not seal other content or another destination.
 */
export class ContentSeal {
  private readonly key: Buffer;

  /**
   * `key`: share one across processes that resume each other's runs (≥ 32 bytes); default: random per guard.
   * @throws VerdictConfigurationError naming `sealKey` for a key that is not one ({@link sealKeyBytes}).
   */
  constructor(
    private readonly destination: string,
    key?: Uint8Array,
  ) {
    this.key = key === undefined ? randomBytes(MIN_SEAL_KEY_BYTES) : sealKeyBytes(key);
  }

  seal(content: string): string {
    return createHmac('sha256', this.key).update(this.destination).update('\0').update(content).digest('hex');
  }

  verify(content: string, seal: unknown): boolean {
    if (typeof seal !== 'string' || !SEAL.test(seal)) return false;
    return timingSafeEqual(Buffer.from(this.seal(content), 'hex'), Buffer.from(seal, 'hex'));
  }
}
