/** Where one reservation lives: a budget's bucket and window. */
export interface BudgetWindow {
  /** `sha256(JCS({budget, per, window_seconds, binding}))`. */
  readonly bucketFingerprint: string;
  /** `floor(t / w) * w`, aligned to the epoch. */
  readonly windowStart: Date;
}

/** A reservation of `amount` against `limit` in one window. */
export interface BudgetReservationRequest extends BudgetWindow {
  readonly windowSeconds: number;
  /** A non-negative safe integer. */
  readonly limit: number;
  /** A non-negative safe integer. */
  readonly amount: number;
}

/** The store's answer to a reservation. */
export interface BudgetReservationAnswer {
  /** `true`: the amount is now reserved in the window; `false`: it would exceed the limit, and nothing changed. */
  readonly reserved: boolean;
  /** What is left after this reservation (spent and reserved both count); `0` when refused. */
  readonly remaining: number;
  /** When the window ends. */
  readonly resetAt: Date;
}

/** A reserved amount, as the store answered it: what commit and release name. */
export interface BudgetReservation extends BudgetWindow {
  /** A non-negative safe integer. */
  readonly amount: number;
}

/**
 * Spend-budget windows (docs/budgets.md): per (bucket, window) a `spent` and a `reserved` total. A reservation is
 * one atomic conditional statement (`spent + reserved + amount <= limit`), so racing processes never over-spend;
 * commit moves the amount from reserved to spent, release gives it back. Store failures propagate and are never
 * reported as `throttle`. An amount or limit that is not a non-negative safe integer (`NaN`, negative, fractional)
 * rejects with `InvalidBudgetReservationError` before anything changes: a negative amount would hand budget back,
 * and a window holding `NaN` would never refuse again.
 */
export interface BudgetStore {
  /**
   * Reserves `amount` if it fits under `limit`; rejects with `InvalidBudgetReservationError` on a malformed one. An
   * amount of 0 is a read of where the window stands (`reserved` while spent + reserved <= limit): it writes nothing.
   */
  reserve(request: BudgetReservationRequest): Promise<BudgetReservationAnswer>;
  /**
   * Moves the reservation's amount from reserved to spent; `false` when no such reservation is held (pruned). A
   * reservation of 0 (a read) answers `true`.
   */
  commit(reservation: BudgetReservation): Promise<boolean>;
  /** Gives the reservation's amount back; `false` when no such reservation is held (pruned); `true` for 0. */
  release(reservation: BudgetReservation): Promise<boolean>;
  /** Deletes windows that ended at or before `now`; returns how many. */
  prune(now: Date): Promise<number>;
}

/** The methods of a {@link BudgetStore} Verdict calls (gates, ceilings, model budgets, `verdict budgets prune`). */
export const BUDGET_STORE_METHODS = [
  'reserve',
  'commit',
  'release',
  'prune',
] as const satisfies readonly (keyof BudgetStore)[];

/** Injection token of the configured {@link BudgetStore}. */
export const BudgetStore = Symbol('BudgetStore');
