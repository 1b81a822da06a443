import { Logger } from '@nestjs/common';
import type { GateRequest } from '../capabilities/gate-request.js';
import type { ActionContextOptions } from '../context/action-context-options.interface.js';
import { moduleActorKey } from '../context/actor-key.js';
import { Decision } from '../decisions/decision.js';
import { Disposition } from '../decisions/disposition.js';
import { Stage } from '../decisions/stage.js';
import { InvalidBudgetAmountError } from '../errors/invalid-budget-amount.error.js';
import type { BudgetOptions } from './budget-options.interface.js';
import type { BudgetReservation, BudgetStore } from './budget-store.interface.js';
import { spendBudgetWindowOf } from './spend-budget-window.js';

/** The reason recorded when a budget without a `reason` of its own refuses. */
export const BUDGET_EXHAUSTED = 'spend budget exhausted';

/**
 * What step 11a reserves: the call's amount (`budget.amountOf`) and its scope's window. Computed before any durable
 * gate spends anything (step 10a): a missing scope key or an invalid amount is a fault of the application and
 * throws then, so a faulty call never uses a rate-limit unit or advances its trajectory.
 */
export function budgetReservationOf(
  options: Pick<ActionContextOptions, 'actorKey'>,
  { definition, envelope, target, clock }: GateRequest,
): BudgetReservation {
  const budget = definition.budget!;
  const window = spendBudgetWindowOf(definition.name, budget, envelope.context, clock(), moduleActorKey(options));
  const amount = budget.amountOf(envelope, target);
  if (!Number.isSafeInteger(amount) || amount < 0) throw new InvalidBudgetAmountError(definition.name, amount);
  return { ...window, amount };
}

/**
 * Step 11a: reserve `spend` (from {@link budgetReservationOf}) in its window, or `throttle` at stage `budget` when the
 * window would pass its limit (nothing is reserved then). A store failure propagates (never a `throttle`). The
 * reservation is recorded with its bucket fingerprint, limit, what remains and when the window resets.
 */
export async function reserveBudget(
  { budgets }: BudgetOptions,
  { definition, trail }: GateRequest,
  spend: BudgetReservation,
): Promise<Decision | BudgetReservation> {
  const budget = definition.budget!;
  const { bucketFingerprint, windowStart, amount } = spend;
  await trail.beforeMutation();
  const answer = await budgets!.reserve({
    bucketFingerprint,
    windowStart,
    windowSeconds: budget.window,
    limit: budget.limit,
    amount,
  });
  if (answer.reserved) trail.markMutated();
  const decision = answer.reserved
    ? Decision.permit(Stage.Budget, 'spend reserved')
    : Decision.of(Disposition.Throttle, Stage.Budget, budget.reason ?? BUDGET_EXHAUSTED);
  trail.record(decision, {
    rateLimitKeyFingerprint: bucketFingerprint,
    rateLimitLimit: budget.limit,
    rateLimitRemaining: answer.remaining,
    rateLimitResetAt: answer.resetAt,
  });
  return answer.reserved ? { bucketFingerprint, windowStart, amount } : decision;
}

/** What becomes of a reservation once the steps within it answered: `hold` keeps it for the executor. */
type Settlement = 'commit' | 'release' | 'hold';

/**
 * Steps 12 and 13 within a reservation: a refusal (`refused(result)`) or a fault of the later gates releases the
 * amount; an admission holds it for the executor.
 */
export function holdingReservation<T>(
  store: BudgetStore,
  reservation: BudgetReservation,
  capability: string,
  gates: () => Promise<T>,
  refused: (result: T) => boolean,
): Promise<T> {
  return within(store, reservation, capability, gates, (result) => (refused(result) ? 'release' : 'hold'), 'release');
}

/**
 * Step 14 within a reservation: the executor's result commits the amount, its fault releases it. It runs inside the
 * execution claims, so what step 15 meets after the executor returned (a claim resolved out of band, a completion
 * that cannot be written) never gives back an amount whose effect happened.
 */
export function spendingReservation<T>(
  store: BudgetStore,
  reservation: BudgetReservation,
  capability: string,
  execute: () => T | Promise<T>,
): Promise<T> {
  return within(store, reservation, capability, execute, () => 'commit', 'release');
}

/**
 * Runs `steps` and settles the reservation as `settled(result)` says, or on a fault as `faulted` says. A commit or
 * release that fails is logged and leaves the amount reserved (it still counts against the limit): the run's own
 * outcome stands.
 */
async function within<T>(
  store: BudgetStore,
  reservation: BudgetReservation,
  capability: string,
  steps: () => T | Promise<T>,
  settled: (result: T) => Settlement,
  faulted: Settlement,
): Promise<T> {
  let result: T;
  try {
    result = await steps();
  } catch (error) {
    await settle(store, reservation, capability, faulted);
    throw error;
  }
  await settle(store, reservation, capability, settled(result));
  return result;
}

async function settle(
  store: BudgetStore,
  reservation: BudgetReservation,
  capability: string,
  how: Settlement,
): Promise<void> {
  if (how === 'hold') return;
  try {
    if (!(await store[how](reservation)))
      new Logger('Verdict').warn(`A spend-budget reservation to ${how} was not held any more (${capability})`);
  } catch (error) {
    new Logger('Verdict').error(
      `Could not ${how} a spend-budget reservation (${capability}); it stays reserved`,
      error,
    );
  }
}
