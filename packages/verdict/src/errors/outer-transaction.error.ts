import { VerdictError } from './verdict.error.js';

/**
 * A durable gate (rate limit, receipt consumption, execution claim) would have run inside an outer
 * application transaction on the same connection, where a rollback could undo it after the executor
 * ran. Nothing was changed. Call Verdict outside the transaction, or give Verdict's stores their own
 * connection.
 */
export class OuterTransactionError extends VerdictError {
  readonly code = 'VERDICT_OUTER_TRANSACTION';

  constructor(gate: string) {
    super(
      `${gate} refused to run inside an outer transaction on the same connection: nothing was changed. Run Verdict outside the transaction.`,
      { gate },
    );
  }
}
