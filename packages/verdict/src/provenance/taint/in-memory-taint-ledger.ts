import type { TaintLedger } from './taint-ledger.interface.js';

/**
 * The taint ledger in process memory: for tests and single-process development only (a laundered value is
 * clean again in another process or after a restart). Use `TypeOrmTaintLedger` outside tests.
 *
 * @example provenance: { taint: { ledger: new InMemoryTaintLedger() } }
 */
export class InMemoryTaintLedger implements TaintLedger {
  /** Expiry (epoch ms) by `JSON.stringify([tenant, fingerprint])`. */
  private readonly entries = new Map<string, number>();

  async record(tenant: string, fingerprints: readonly string[], expiresAt: Date): Promise<void> {
    for (const fingerprint of fingerprints) {
      const key = keyOf(tenant, fingerprint);
      this.entries.set(key, Math.max(this.entries.get(key) ?? -Infinity, expiresAt.getTime()));
    }
  }

  async tainted(tenant: string, fingerprints: readonly string[], now: Date): Promise<ReadonlySet<string>> {
    return new Set(
      fingerprints.filter((fingerprint) => (this.entries.get(keyOf(tenant, fingerprint)) ?? -Infinity) > now.getTime()),
    );
  }

  async prune(now: Date): Promise<number> {
    let pruned = 0;
    for (const [key, expiresAt] of this.entries)
      if (expiresAt <= now.getTime()) {
        this.entries.delete(key);
        pruned++;
      }
    return pruned;
  }
}

function keyOf(tenant: string, fingerprint: string): string {
  return JSON.stringify([tenant, fingerprint]);
}
