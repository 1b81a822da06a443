import { VerdictError } from './verdict.error.js';

/**
 * A model call counted against a `cost` model budget, for a model the price table (`modelBudgets.prices`) does not
 * name — or whose name LangChain does not report (`ls_model_name`). A model without a price is never free: nothing
 * is reserved and the model is not called. Add the model's price.
 */
export class UnpricedModelError extends VerdictError {
  readonly code = 'VERDICT_UNPRICED_MODEL';

  constructor(model: string | undefined) {
    super(
      model === undefined
        ? 'A model call counts against a cost budget, but the model reports no name (ls_model_name) to price it by: use a model that names itself, or count tokens only.'
        : `Model "${model}" has no price in modelBudgets.prices, and a cost budget counts its calls: add { input, output } per million tokens for it.`,
      model === undefined ? {} : { model },
    );
  }
}
