import { InvalidBudgetReservationError } from '../errors/invalid-budget-reservation.error.js';

/**
 * Throws {@link InvalidBudgetReservationError} unless `value` is a non-negative safe integer: what every
 * `BudgetStore` checks of an amount and a limit before it touches a window.
 */
export function assertBudgetAmount(
  operation: 'reserve' | 'commit' | 'release',
  field: 'amount' | 'limit',
  value: unknown,
): void {
  if (!(Number.isSafeInteger(value) && (value as number) >= 0))
    throw new InvalidBudgetReservationError(operation, field, value);
}
