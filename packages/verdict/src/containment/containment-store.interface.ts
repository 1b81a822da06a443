import type { Containment, ContainmentKey } from './containment.js';

/** The store's answer to an engagement: `engaged: false` when the switch was already on (the kept one is returned). */
export interface ContainmentEngagement {
  readonly engaged: boolean;
  readonly containment: Containment;
}

/**
 * Where kill switches live (docs/containment.md): one row per engaged switch, shared by every process and
 * node on the store. Engaging an engaged switch changes nothing; releasing removes it (only the engagement that
 * was read, when the caller says which: see {@link ContainmentStore.release}). Adapters:
 * `InMemoryContainmentStore` (tests, one process), `TypeOrmContainmentStore` (`@verdict/nestjs/typeorm`).
 * Store failures reject; they are never read as "not contained".
 */
export interface ContainmentStore {
  /** Engages `containment` atomically, or keeps the switch already engaged for its key. */
  engage(containment: Containment): Promise<ContainmentEngagement>;
  /**
   * Releases the switch for `key`; `false` when none was engaged. With `engagedAt` (the {@link Containment.engagedAt}
   * of the engagement the caller read), only that engagement is released, atomically: a switch released and engaged
   * again since (another engagement, another instant) is kept, and the answer is `false`. `ContainmentService`
   * always passes it. Optional so that stores written before it keep compiling; such a store releases whatever is
   * engaged for `key`, and a release racing a re-engagement may then remove the newer one.
   *
   * @example await store.release({ scope: 'capability', subject: 'orders.refund' }, read.engagedAt);
   */
  release(key: ContainmentKey, engagedAt?: Date): Promise<boolean>;
  /** Every engaged switch, oldest first. */
  active(): Promise<Containment[]>;
}

/** Injection token of the configured {@link ContainmentStore}. */
export const ContainmentStore = Symbol('ContainmentStore');
