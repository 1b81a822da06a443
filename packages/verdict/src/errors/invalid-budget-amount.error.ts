import { VerdictError } from './verdict.error.js';

/**
 * A spend budget's `amountOf` returned something other than a non-negative safe integer (a negative amount would
 * refill the budget; a fraction or `NaN` cannot be compared with the limit). A fault of the application, never a
 * decision: nothing is reserved and the executor does not run. Validate the amount in the capability's `arguments`
 * schema (`z.number().int().nonnegative()`).
 */
export class InvalidBudgetAmountError extends VerdictError {
  readonly code = 'VERDICT_INVALID_BUDGET_AMOUNT';

  constructor(capability: string, amount: unknown) {
    super(
      `Capability "${capability}" has a spend budget whose amountOf returned ${typeof amount === 'number' ? String(amount) : `a ${typeof amount}`}: it must return a non-negative safe integer.`,
      { capability },
    );
  }
}
