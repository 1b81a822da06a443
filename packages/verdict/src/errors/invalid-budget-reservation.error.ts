import { VerdictError } from './verdict.error.js';

/**
 * A budget store (`BudgetStore.reserve`, `commit` or `release`) was given an amount or a limit that is not a
 * non-negative safe integer: a negative amount would hand budget back, and `NaN` compares false with every limit, so
 * a window holding it would never refuse again. Thrown before the store touches anything: nothing is reserved,
 * committed or released. A fault of the caller (a custom gate, or a store called directly), never a decision;
 * Verdict's own gates validate amounts first (`InvalidBudgetAmountError` for a spend budget's `amountOf`).
 */
export class InvalidBudgetReservationError extends VerdictError {
  readonly code = 'VERDICT_INVALID_BUDGET_RESERVATION';

  constructor(operation: 'reserve' | 'commit' | 'release', field: 'amount' | 'limit', value: unknown) {
    super(
      `A budget store was asked to ${operation} with ${field} ${typeof value === 'number' ? String(value) : `a ${typeof value}`}: amounts and limits must be non-negative safe integers. Nothing changed.`,
      { operation, field },
    );
  }
}
