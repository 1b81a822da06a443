import { APPROVAL_RECEIPT_STORE_METHODS } from '../approvals/approval-receipt-store.interface.js';
import { BUDGET_STORE_METHODS } from '../budgets/budget-store.interface.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { EXECUTION_CLAIM_STORE_METHODS } from '../execution-claims/execution-claim-store.interface.js';
import { TRAJECTORY_STORE_METHODS } from '../forbidden-states/trajectory-store.interface.js';
import { RATE_LIMIT_STORE_METHODS } from '../rate-limits/rate-limit-store.interface.js';
import { notAStore } from '../shared/not-a-store.js';
import type { CapabilityRegistryOptions } from './capability-registry-options.interface.js';

/** The module's store options, each with its store type, every method Verdict calls on it, and the store to pass. */
const STORES = [
  ['approvals', 'ApprovalReceiptStore', APPROVAL_RECEIPT_STORE_METHODS, 'TypeOrmApprovalReceiptStore'],
  ['budgets', 'BudgetStore', BUDGET_STORE_METHODS, 'TypeOrmBudgetStore'],
  ['executionClaims', 'ExecutionClaimStore', EXECUTION_CLAIM_STORE_METHODS, 'TypeOrmExecutionClaimStore'],
  ['rateLimits', 'RateLimitStore', RATE_LIMIT_STORE_METHODS, 'TypeOrmRateLimitStore'],
  ['trajectories', 'TrajectoryStore', TRAJECTORY_STORE_METHODS, 'TypeOrmTrajectoryStore'],
] as const satisfies ReadonlyArray<readonly [keyof CapabilityRegistryOptions, string, readonly string[], string]>;

/**
 * Boot check of the module's stores (`approvals`, `budgets`, `executionClaims`, `rateLimits`, `trajectories`), given
 * or not, whether or not a capability uses them: only `undefined` is "left out", and a store given has every method
 * Verdict calls on it. A `null` or `{}` from a `forRootAsync` factory would otherwise boot where no capability asks for
 * the store, and fail with a `TypeError` where something else reads it: an approval endpoint, `ApprovalService`,
 * `verdict budgets prune`, `verdict rate-limits prune`, `verdict claims list`.
 *
 * @throws VerdictConfigurationError naming the option, before anything starts.
 */
export function assertGivenStores(options: CapabilityRegistryOptions): void {
  for (const [option, type, methods, example] of STORES) {
    const store: unknown = options[option];
    const problem = store === undefined ? null : notAStore(store, option, type, methods);
    if (problem !== null)
      throw new VerdictConfigurationError(`${problem}: pass a ${example} to VerdictModule.forRoot, or leave it out.`, {
        option,
      });
  }
}
