import type { ActionContext } from '../context/action-context.js';
import { conversationIdOf } from '../context/conversation-id.js';
import { Decision } from '../decisions/decision.js';
import { Disposition } from '../decisions/disposition.js';
import { Stage } from '../decisions/stage.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { isWindowSeconds, windowStartOf } from '../rate-limits/fixed-window.js';
import { isPositiveInteger } from '../shared/is-positive-integer.js';
import { notABudgetStore } from './budget-configuration.js';
import type { BudgetOptions } from './budget-options.interface.js';
import type { BudgetReservationRequest, BudgetStore } from './budget-store.interface.js';
import { type CallCeilingOptions, type CallCeilings, DEFAULT_CALL_CEILING_WINDOW } from './call-ceilings.js';
import { unknownKeys } from '../shared/unknown-keys.js';

/** The keys of `callCeilings`: any other is refused at boot. */
const CALL_CEILING_KEYS = ['toolCalls', 'deniedProposals', 'window'] as const satisfies readonly (keyof CallCeilings)[];

/** The reason of a proposal past the conversation's tool-call ceiling. */
export const TOOL_CALL_CEILING = 'conversation tool-call ceiling reached';
/** The reason of a proposal in a conversation stopped by its refused-proposal ceiling. */
export const DENIED_PROPOSAL_CEILING = 'conversation stopped: refused-proposal ceiling reached';

/** The conversation a refused proposal was counted in, when that refusal reached the ceiling. */
export interface ConversationStopped {
  readonly conversationFingerprint: string;
  /** How many refused proposals the conversation has collected. */
  readonly refusals: number;
}

/**
 * Step 0a and the count after a refused run: the conversation's call ceilings, counted in the budget store (one
 * window row per conversation and counter). A context without a conversation id is not counted.
 */
export class CallCeilingGate {
  private readonly ceilings: CallCeilings | undefined;
  private readonly window: number;
  private readonly store: BudgetStore | undefined;

  constructor({ callCeilings, budgets }: CallCeilingOptions & BudgetOptions) {
    this.ceilings = callCeilings;
    this.store = budgets;
    const fail = (message: string): never => {
      throw new VerdictConfigurationError(`callCeilings ${message}`);
    };
    if (
      callCeilings !== undefined &&
      (typeof callCeilings !== 'object' || callCeilings === null || Array.isArray(callCeilings))
    )
      fail(
        `must be { toolCalls?, deniedProposals?, window? }, not ${callCeilings === null ? 'null' : Array.isArray(callCeilings) ? 'an array' : `a ${typeof callCeilings}`}: leave it out for no ceilings.`,
      );
    // Only a window left out takes the default: `null` is not "left out", and is refused below.
    this.window = callCeilings?.window === undefined ? DEFAULT_CALL_CEILING_WINDOW : callCeilings.window;
    if (callCeilings === undefined) return;
    // Every key is optional, so a misspelt one (`toolcalls`) would otherwise boot a ceiling that counts nothing.
    const unknown = unknownKeys(callCeilings, CALL_CEILING_KEYS);
    if (unknown.length > 0)
      fail(
        `has ${unknown.length === 1 ? 'an unknown key' : 'unknown keys'} ${unknown.map((key) => JSON.stringify(key)).join(', ')}: its keys are ${CALL_CEILING_KEYS.join(', ')}.`,
      );
    const { toolCalls, deniedProposals } = callCeilings;
    if (toolCalls === undefined && deniedProposals === undefined)
      fail(
        'sets neither toolCalls nor deniedProposals, so nothing would be counted: set one or both (callCeilings: { toolCalls: 200, deniedProposals: 10 }), or leave callCeilings out for no ceilings.',
      );
    for (const [name, value] of Object.entries({ toolCalls, deniedProposals }))
      if (value !== undefined && !isPositiveInteger(value))
        fail(`.${name} must be a positive integer (got ${String(value)}).`);
    if (!isWindowSeconds(this.window))
      fail('.window must be a positive whole number of seconds (at most 3,155,760,000: 100 years).');
    if (budgets === undefined)
      fail('need a budget store: pass `budgets` to VerdictModule.forRoot (TypeOrmBudgetStore), which counts them.');
    const notStore = notABudgetStore(budgets);
    if (notStore !== null) fail(`need a budget store, but ${notStore}`);
  }

  get configured(): boolean {
    return this.ceilings !== undefined;
  }

  /**
   * Step 0a: `deny` at `call_ceiling` when the conversation was stopped by its refused proposals, or when this
   * proposal would pass its tool-call ceiling (each admitted proposal is counted); `null` to go on. A dry run
   * (`evaluate`) answers the same and counts nothing.
   */
  async admit(context: ActionContext, capability: string, now: Date, dryRun = false): Promise<Decision | null> {
    const counters = this.countersOf(context, capability, now);
    if (counters === null) return null;
    const { toolCalls, deniedProposals } = this.ceilings!;
    // An amount of 0 fits while fewer than `ceiling` are counted, and counts nothing.
    const below = async (counter: Omit<BudgetReservationRequest, 'limit' | 'amount'>, ceiling: number) =>
      (await this.store!.reserve({ ...counter, limit: ceiling - 1, amount: 0 })).reserved;
    if (deniedProposals !== undefined && !(await below(counters.refusals, deniedProposals)))
      return Decision.deny(Stage.CallCeiling, DENIED_PROPOSAL_CEILING);
    if (toolCalls === undefined) return null;
    if (dryRun)
      return (await below(counters.calls, toolCalls)) ? null : Decision.deny(Stage.CallCeiling, TOOL_CALL_CEILING);
    // Counting is not a step the run's evidence answers for (nothing of it is recorded), so the run is not marked
    // mutated: the evidence written before the first gate that is (a rate limit, a claim, the executor) still stops the
    // action when it fails. A call counted and then stopped so stays counted, which only brings the ceiling nearer.
    const call = { ...counters.calls, limit: toolCalls, amount: 1 };
    const counted = await this.store!.reserve(call);
    if (!counted.reserved) return Decision.deny(Stage.CallCeiling, TOOL_CALL_CEILING);
    await this.store!.commit(call);
    return null;
  }

  /**
   * After a run: counts a refused proposal (`deny` or `throttle`, not the ceiling's own) of the conversation; the
   * conversation it stopped when this refusal reached `deniedProposals`, else `null`.
   */
  async countRefusal(
    context: ActionContext,
    capability: string,
    decision: Decision,
    now: Date,
  ): Promise<ConversationStopped | null> {
    const limit = this.ceilings?.deniedProposals;
    const refused = decision.disposition === Disposition.Deny || decision.disposition === Disposition.Throttle;
    if (limit === undefined || !refused || decision.stage === Stage.CallCeiling) return null;
    const counters = this.countersOf(context, capability, now);
    if (counters === null) return null;
    const refusal = { ...counters.refusals, limit, amount: 1 };
    const counted = await this.store!.reserve(refusal);
    if (!counted.reserved) return null;
    await this.store!.commit(refusal);
    return counted.remaining === 0
      ? { conversationFingerprint: counters.conversationFingerprint, refusals: limit }
      : null;
  }

  /** The conversation's two counters in the current window, or `null` without ceilings or a conversation id. */
  private countersOf(context: ActionContext, capability: string, now: Date) {
    if (this.ceilings === undefined) return null;
    const conversation = conversationIdOf(context, capability);
    if (conversation === null) return null;
    const windowStart = windowStartOf(now, this.window);
    const counter = (name: string) => ({
      bucketFingerprint: fingerprint({
        ceiling: name,
        window_seconds: this.window,
        binding: { tenant: context.tenant, conversation },
      }),
      windowStart,
      windowSeconds: this.window,
    });
    return {
      conversationFingerprint: fingerprint(conversation),
      calls: counter('tool_calls'),
      refusals: counter('denied_proposals'),
    };
  }
}
