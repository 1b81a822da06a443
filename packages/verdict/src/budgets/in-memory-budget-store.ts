import { pruneEnded } from '../shared/prune-ended.js';
import { assertBudgetAmount } from './budget-amount.js';
import type {
  BudgetReservation,
  BudgetReservationAnswer,
  BudgetReservationRequest,
  BudgetStore,
} from './budget-store.interface.js';

/**
 * Spend-budget windows in process memory: for tests and single-process development only. Like every
 * `BudgetStore`, it refuses an amount or limit that is not a non-negative safe integer
 * (`InvalidBudgetReservationError`) before touching a window.
 */
export class InMemoryBudgetStore implements BudgetStore {
  private readonly windows = new Map<string, { spent: number; reserved: number; endsAt: number }>();

  async reserve({
    bucketFingerprint,
    windowStart,
    windowSeconds,
    limit,
    amount,
  }: BudgetReservationRequest): Promise<BudgetReservationAnswer> {
    assertBudgetAmount('reserve', 'amount', amount);
    assertBudgetAmount('reserve', 'limit', limit);
    const resetAt = new Date(windowStart.getTime() + windowSeconds * 1000);
    const key = keyOf({ bucketFingerprint, windowStart });
    const window = this.windows.get(key) ?? { spent: 0, reserved: 0, endsAt: resetAt.getTime() };
    const used = window.spent + window.reserved + amount;
    if (used > limit) return { reserved: false, remaining: 0, resetAt };
    // An amount of 0 reads where the window stands: it leaves no empty window behind.
    if (amount > 0) this.windows.set(key, { ...window, reserved: window.reserved + amount });
    return { reserved: true, remaining: limit - used, resetAt };
  }

  async commit(reservation: BudgetReservation): Promise<boolean> {
    assertBudgetAmount('commit', 'amount', reservation.amount);
    return this.settle(reservation, reservation.amount);
  }

  async release(reservation: BudgetReservation): Promise<boolean> {
    assertBudgetAmount('release', 'amount', reservation.amount);
    return this.settle(reservation, 0);
  }

  async prune(now: Date): Promise<number> {
    return pruneEnded(this.windows, now);
  }

  /** Takes the reservation off `reserved` and adds `spent` to the window's spend. */
  private settle(reservation: BudgetReservation, spent: number): boolean {
    // Nothing to move: a reservation of 0 was a read and left no window (as the TypeORM store answers).
    if (reservation.amount === 0) return true;
    const key = keyOf(reservation);
    const window = this.windows.get(key);
    if (window === undefined || window.reserved < reservation.amount) return false;
    this.windows.set(key, { ...window, spent: window.spent + spent, reserved: window.reserved - reservation.amount });
    return true;
  }
}

function keyOf({ bucketFingerprint, windowStart }: { bucketFingerprint: string; windowStart: Date }): string {
  return `${bucketFingerprint}@${windowStart.getTime()}`;
}
