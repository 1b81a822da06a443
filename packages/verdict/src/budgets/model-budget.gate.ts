import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { ActionContext } from '../context/action-context.js';
import { attributedActorFingerprint, tenantFingerprintOf, moduleActorKey } from '../context/actor-key.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { MissingModelBudgetScopeError } from '../errors/missing-model-budget-scope.error.js';
import { ModelBudgetExceededError } from '../errors/model-budget-exceeded.error.js';
import { UnpricedModelError } from '../errors/unpriced-model.error.js';
import { ModelBudgetExceeded } from '../events/model-budget-exceeded.event.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { windowStartOf } from '../rate-limits/fixed-window.js';
import type { BudgetReservation, BudgetStore } from './budget-store.interface.js';
import { budgetScopeKeyOf } from './budget-scope-key.js';
import { assertModelBudgetsConfigured } from './model-budget-configuration.js';
import { type ModelBudget, ModelBudgetMeasure, type ModelCallBudgets, type ModelPrice } from './model-budget.js';
import { MODEL_BUDGET_OPTIONS, type ModelBudgetOptions } from './model-budget-options.interface.js';
import { emitSafely } from '../events/emit-safely.js';
import { reportedUsage } from './reported-usage.js';

/** What a model call is estimated to use before it is made. */
export interface ModelCallEstimate {
  /** The model's name (LangChain's `ls_model_name`), `undefined` when it reports none. */
  readonly model: string | undefined;
  /** An upper bound of the call's input tokens. */
  readonly inputTokens: number;
  /** The most output the model itself allows (`ls_max_tokens`), `undefined` when it declares no maximum. */
  readonly maxOutputTokens: number | undefined;
}

/** The usage a provider reported for one model call. */
export interface ModelUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** The reservations one model call holds until it is settled. */
export interface ModelBudgetHold {
  readonly tokens: ModelUsage;
  readonly price: ModelPrice | undefined;
  readonly reservations: ReadonlyArray<{ readonly budget: ModelBudget; readonly reservation: BudgetReservation }>;
}

/** Where one model budget stands for a context: what the lab and operators show. */
export interface ModelBudgetStanding {
  readonly name: string;
  readonly measure: ModelBudget['measure'];
  readonly per: ModelBudget['per'];
  readonly limit: number;
  /** What is left in the current window (spent and held reservations both count). */
  readonly remaining: number;
  readonly resetAt: Date;
}

/** The holds {@link ModelBudgetGate.reserve} issued that are not settled yet (any gate's: one store, one window). */
const unsettled = new WeakSet<ModelBudgetHold>();

/** Headroom for usage past the estimate: what was spent is recorded even when it passes the limit. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/**
 * Token and cost budgets on model calls (docs/budgets.md, "Token and cost budgets"), runtime-neutral: the agent
 * middlewares and `QuarantineService.extract` estimate a call and read its usage; this gate reserves the estimate in
 * every configured budget's window of the budget store (one atomic statement each) before the call, and settles it
 * after: the reported usage is committed and the rest released; without usage the estimate is kept. A call that does
 * not fit a budget throws {@link ModelBudgetExceededError} (after giving back what it reserved in the others) and
 * emits {@link ModelBudgetExceeded}; when the module's `actorKey` throws as that event is built, the call fails with
 * the key's error instead, and no event is emitted (ADR 0208).
 */
@Injectable()
export class ModelBudgetGate {
  private readonly config: ModelCallBudgets | undefined;
  private readonly clock: () => Date;

  /** @throws VerdictConfigurationError at boot for a malformed `modelBudgets` or one without a budget store. */
  constructor(
    @Inject(MODEL_BUDGET_OPTIONS) private readonly options: ModelBudgetOptions,
    @Optional() private readonly events?: EventEmitter2,
  ) {
    this.config = options.modelBudgets;
    this.clock = options.clock ?? (() => new Date());
    if (this.config !== undefined) assertModelBudgetsConfigured(this.config, options);
  }

  get configured(): boolean {
    return this.config !== undefined;
  }

  /**
   * Reserves the call's estimate — `inputTokens` plus the output the model allows, or the configured
   * `maxOutputTokens` — in every budget, in tokens or in cost.
   *
   * @throws ModelBudgetExceededError when a budget has no room (nothing stays reserved).
   * @throws UnpricedModelError when a cost budget counts the call and the model has no price.
   * @throws MissingModelBudgetScopeError when the context has no key for a budget's scope.
   * @throws whatever the module's `actorKey` throws for the actor (asked for a `per: 'actor'` budget's window, else
   *   for the `ModelBudgetExceeded` event): an application fault wins over the budget stop (nothing stays reserved).
   */
  async reserve(context: ActionContext, estimate: ModelCallEstimate): Promise<ModelBudgetHold> {
    const config = this.requireConfig();
    const { price, outputTokens } = this.termsOf(estimate);
    assertTokenCount(estimate.inputTokens, 'estimated input tokens');
    const tokens = { inputTokens: estimate.inputTokens, outputTokens };
    const now = this.clock();
    const held: Array<ModelBudgetHold['reservations'][number]> = [];
    try {
      for (const budget of config.budgets) {
        const window = this.windowOf(budget, context, now);
        const amount = amountOf(budget, tokens, price);
        const answer = await this.store().reserve({ ...window, limit: budget.limit, amount });
        if (!answer.reserved) {
          this.emitExceeded(budget, window.bucketFingerprint, estimate.model, amount, context, answer.resetAt, now);
          throw new ModelBudgetExceededError(budget.name, budget.measure, budget.per, answer.resetAt);
        }
        held.push({ budget, reservation: { ...window, amount } });
      }
    } catch (error) {
      await Promise.all(held.map(({ budget, reservation }) => this.settleOne(budget, reservation, 0, 'release')));
      throw error;
    }
    const hold = { tokens, price, reservations: held };
    unsettled.add(hold);
    return hold;
  }

  /**
   * After the call: commits what `usage` says was used and releases the rest of each reservation; `null` (no usage
   * reported, or the call failed) keeps the whole estimate, and so does a usage that is not a count of tokens (a
   * negative, fractional or non-numeric total, or no input: {@link reportedUsage}), which would otherwise give back
   * more than this call reserved. Usage past the estimate is committed too, even past the limit: it was spent. A store
   * failure is logged and leaves the amount reserved (still counted). A hold is settled once: settling it again, or
   * settling a hold no gate issued (a copy), changes nothing and logs a warning — the store's window keeps
   * one total for every call in flight, so a second release would give back another call's reservation.
   */
  async settle(hold: ModelBudgetHold, usage: ModelUsage | null): Promise<void> {
    if (!unsettled.delete(hold)) {
      new Logger('Verdict').warn('A model-budget hold was settled again, or is not one a gate issued: nothing changed');
      return;
    }
    const used = usage === null ? null : reportedUsage(usage.inputTokens, usage.outputTokens);
    if (used === null)
      new Logger('Verdict').warn('A model call reported no usage: its model-budget estimate is kept as spent');
    await Promise.all(
      hold.reservations.map(({ budget, reservation }) =>
        this.settleOne(budget, reservation, amountOf(budget, used ?? hold.tokens, hold.price), 'commit'),
      ),
    );
  }

  /**
   * One model call inside the budgets: {@link reserve}s `estimate`, makes `call` only when every budget had room, and
   * {@link settle}s with the usage `usageOf` reads from its answer — `null` (the estimate kept) when it reports none
   * or `call` throws, whose error is then rethrown. What a runtime's budget middleware does around each call.
   *
   * @throws ModelBudgetExceededError, UnpricedModelError, MissingModelBudgetScopeError as {@link reserve}: `call` is
   *   not made.
   */
  async withinBudgets<T>(
    context: ActionContext,
    estimate: ModelCallEstimate,
    call: () => T | PromiseLike<T>,
    usageOf: (answer: T) => ModelUsage | null,
  ): Promise<T> {
    const hold = await this.reserve(context, estimate);
    let usage: ModelUsage | null = null;
    try {
      const answer = await call();
      usage = usageOf(answer);
      return answer;
    } finally {
      await this.settle(hold, usage);
    }
  }

  /**
   * Throws now what {@link reserve} would throw at every call of a model with these facts — no price under a cost
   * budget, no maximum output anywhere, one that is not a token count — for a model the module itself calls (the
   * quarantined model), so that the application fails at boot rather than at its first call.
   *
   * @throws VerdictConfigurationError naming `what` (the option that holds the model), the reason its cause.
   */
  assertCountable(facts: Pick<ModelCallEstimate, 'model' | 'maxOutputTokens'>, what: string): void {
    try {
      this.termsOf(facts);
    } catch (error) {
      if (!(error instanceof UnpricedModelError || error instanceof VerdictConfigurationError)) throw error;
      throw new VerdictConfigurationError(
        `${what} cannot be counted against modelBudgets: ${error.message}`,
        {},
        { cause: error },
      );
    }
  }

  /** Where each budget stands for `context` now (reads by reserving nothing). */
  async standing(context: ActionContext): Promise<ModelBudgetStanding[]> {
    const config = this.requireConfig();
    const now = this.clock();
    return Promise.all(
      config.budgets.map(async (budget) => {
        const answer = await this.store().reserve({
          ...this.windowOf(budget, context, now),
          limit: budget.limit,
          amount: 0,
        });
        const { name, measure, per, limit } = budget;
        return { name, measure, per, limit, remaining: answer.remaining, resetAt: answer.resetAt };
      }),
    );
  }

  /** Moves `spent` of the reservation to spent (past its amount: the excess too) and gives the rest back. */
  private async settleOne(
    budget: ModelBudget,
    reservation: BudgetReservation,
    spent: number,
    how: 'commit' | 'release',
  ): Promise<void> {
    const store = this.store();
    const committed = Math.min(spent, reservation.amount);
    try {
      if (committed > 0) await store.commit({ ...reservation, amount: committed });
      if (reservation.amount > committed)
        await store.release({ ...reservation, amount: reservation.amount - committed });
      if (spent > reservation.amount) {
        const excess = { ...reservation, amount: spent - reservation.amount };
        const window = { windowSeconds: budget.window, limit: UNBOUNDED };
        if ((await store.reserve({ ...excess, ...window })).reserved) await store.commit(excess);
      }
    } catch (error) {
      new Logger('Verdict').error(
        `Could not ${how} a model-budget reservation (${budget.name}); it stays reserved`,
        error,
      );
    }
  }

  /**
   * What a call of the model is reserved by, besides its input: its price, and the output it may answer — the
   * model's own maximum, else its price's `maxOutputTokens`, else the configured one.
   */
  private termsOf({ model, maxOutputTokens }: Pick<ModelCallEstimate, 'model' | 'maxOutputTokens'>): {
    readonly price: ModelPrice | undefined;
    readonly outputTokens: number;
  } {
    const config = this.requireConfig();
    const price = model === undefined ? undefined : ownEntry(config.prices, model);
    if (price === undefined && config.budgets.some(({ measure }) => measure === ModelBudgetMeasure.Cost))
      throw new UnpricedModelError(model);
    const outputTokens = maxOutputTokens ?? price?.maxOutputTokens ?? config.maxOutputTokens;
    if (outputTokens === undefined)
      throw new VerdictConfigurationError(
        `Model ${model === undefined ? '(unnamed)' : `"${model}"`} declares no maximum output, so its calls cannot be estimated: set maxTokens on the model, or maxOutputTokens in modelBudgets (or in its price).`,
      );
    // A runtime passes the model's own setting (maxTokens, maxOutputTokens) through: NaN or a negative count would
    // reserve nothing, or give budget back.
    assertTokenCount(outputTokens, 'maximum output tokens');
    return { price, outputTokens };
  }

  private windowOf(budget: ModelBudget, context: ActionContext, now: Date) {
    const binding = budgetScopeKeyOf(budget.per, context, moduleActorKey(this.options));
    if (binding === null) throw new MissingModelBudgetScopeError(budget.name, budget.per);
    return {
      bucketFingerprint: fingerprint({
        model_budget: budget.name,
        measure: budget.measure,
        per: budget.per,
        window_seconds: budget.window,
        binding,
      }),
      windowStart: windowStartOf(now, budget.window),
      windowSeconds: budget.window,
    };
  }

  private emitExceeded(
    budget: ModelBudget,
    bucketFingerprint: string,
    model: string | undefined,
    requested: number,
    context: ActionContext,
    resetAt: Date,
    now: Date,
  ): void {
    // An actor whose key's answer names nobody is attributed to no one; what the key function throws propagates
    // before the event is built, and the call fails with it, not as the budget stop (ADR 0208).
    const actor = attributedActorFingerprint(context, moduleActorKey(this.options));
    emitSafely(
      this.events,
      ModelBudgetExceeded.event,
      new ModelBudgetExceeded(
        budget.name,
        budget.measure,
        budget.per,
        bucketFingerprint,
        model ?? null,
        budget.limit,
        requested,
        actor,
        tenantFingerprintOf(context),
        resetAt,
        now,
      ),
    );
  }

  private requireConfig(): ModelCallBudgets {
    if (this.config === undefined)
      throw new VerdictConfigurationError(
        'Model budgets are not configured: pass `modelBudgets` (and `budgets`) to VerdictModule.forRoot.',
      );
    return this.config;
  }

  private store(): BudgetStore {
    return this.options.budgets!;
  }
}

/** What `tokens` amount to in `budget`'s measure: their count, or their cost rounded up (input and output each). */
function amountOf(budget: ModelBudget, tokens: ModelUsage, price: ModelPrice | undefined): number {
  if (budget.measure === ModelBudgetMeasure.Tokens) return tokens.inputTokens + tokens.outputTokens;
  return costOf(tokens.inputTokens, price!.input) + costOf(tokens.outputTokens, price!.output);
}

/** `ceil(tokens × pricePerMillion / 1,000,000)` in exact integer arithmetic. */
function costOf(tokens: number, pricePerMillion: number): number {
  const cost = (BigInt(tokens) * BigInt(pricePerMillion) + 999_999n) / 1_000_000n;
  return Number(cost);
}

function ownEntry<T>(table: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

function assertTokenCount(value: number, what: string): void {
  if (!(Number.isSafeInteger(value) && value >= 0))
    throw new VerdictConfigurationError(
      `A model call's ${what} must be a non-negative safe integer (got ${String(value)}).`,
    );
}
