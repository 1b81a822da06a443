import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SEAL = /^[0-9a-f]{64}$/;

/**
 * An HMAC-SHA-256 of a destination and some content under a key only the model-input guard holds: what the
 * guards of every runtime seal what they released or what the model answered with. The seal holds no data; a
 * copy of it does not seal other content or another destination.
 */
export class ContentSeal {
  private readonly key: Buffer;

  /** `key`: share one across processes that resume each other's runs (≥ 32 bytes); default: random per guard. */
  constructor(
    private readonly destination: string,
    key?: Uint8Array,
  ) {
    if (key !== undefined && key.length < 32) throw new RangeError('A release seal key needs at least 32 bytes.');
    this.key = key === undefined ? randomBytes(32) : Buffer.from(key);
  }

  seal(content: string): string {
    return createHmac('sha256', this.key).update(this.destination).update('\0').update(content).digest('hex');
  }

  verify(content: string, seal: unknown): boolean {
    if (typeof seal !== 'string' || !SEAL.test(seal)) return false;
    return timingSafeEqual(Buffer.from(this.seal(content), 'hex'), Buffer.from(seal, 'hex'));
  }
}
