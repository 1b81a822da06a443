import { AIMessage } from '@langchain/core/messages';
import { interrupt, isGraphInterrupt } from '@langchain/langgraph';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { createMiddleware } from 'langchain';
import type { ActionContextStore } from '../context/action-context.store.js';
import { type ActorKey, principalKeyOf, moduleActorKey } from '../context/actor-key.js';
import { PlanRecorded } from '../events/plan-recorded.event.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { type Plan, planFingerprint, planSchema, withPlan } from '../plans/plan.js';
import { planProblem } from '../plans/plan-validation.js';
import type { ProvenanceLabels } from '../provenance/provenance-labels.js';
import { currentProvenanceWindow } from '../provenance/provenance-scope.js';
import { rememberBounded } from '../shared/remember-bounded.js';
import { labelsOwnResults, rememberOwnText } from './own-labelled-tool.js';
import { threadOf } from './thread-of.js';
import { emitSafely } from '../events/emit-safely.js';
import { PLAN_SOURCE } from '../provenance/vouching-content.js';

/** How many threads' plans one {@link PlanMode} keeps. */
const PLAN_CAPACITY = 10_000;

/**
 * The interrupt a plan change raises: the user approves the new plan (resume with `{ approved: true, planFingerprint }`,
 * naming the plan approved) or not. The approval puts this plan in force only in place of `previousFingerprint`: if
 * another plan is in force by then, it is refused.
 */
export interface PlanChangeInterrupt {
  readonly type: 'verdict_plan_change';
  readonly planFingerprint: string;
  readonly previousFingerprint: string;
  /** The proposed plan, as the model wrote it: capabilities and source names, for the user to read. */
  readonly plan: Plan;
}

/** Where {@link PlanRecorded} goes: an `EventEmitter2` fits. */
export interface PlanEventSink {
  emit(event: string, payload: PlanRecorded): unknown;
}

/** How a run was told the tool call it made, and the state it ran in (createAgent's ToolNode hands both). */
interface ToolConfig {
  configurable?: { thread_id?: unknown };
  toolCall?: { args?: unknown; id?: unknown };
  state?: { messages?: unknown };
}

/** Options of {@link PlanMode}. */
export interface PlanModeOptions {
  /** The plan tool's name. Default `'verdict_plan'`. */
  readonly toolName?: string;
  /** Receives {@link PlanRecorded}. */
  readonly events?: PlanEventSink;
  /**
   * Whether a capability of this name exists (`PlanModes` asks the module's registry): a plan naming another is
   * refused as proposed. Default: any name is taken.
   */
  readonly isCapability?: (name: string) => boolean;
  /** The actor's stable key (the module's `actorKey`): plans are kept per actor, tenant and thread. */
  readonly actorKey?: ActorKey;
  readonly clock?: () => Date;
}

/**
 * Plan mode for one `createAgent` agent (docs/quarantine.md, "Plans"): the model first proposes a plan with the
 * plan tool — the capabilities it will call and, per argument, the untrusted sources its value may be read from —
 * while its window holds trusted input only. Every bound call of the run is then checked against it at stage
 * `provenance`: a capability outside the plan, or a value from a source the plan did not name, is refused, as is
 * every call before a plan, and every call of a run without thread id (`configurable.thread_id`) or action context.
 * A plan is kept per actor, tenant and thread (ADR 0104): another actor, or another tenant, that runs with the same
 * thread id has no plan of this one. A second plan in the same thread pauses the run for the user (a LangGraph
 * interrupt, {@link PlanChangeInterrupt}). Place its middleware first, before the model-input guard, quarantined
 * reading and the tracker.
 *
 * @example
 * const plans = new PlanMode(labels, contexts, { actorKey: (user: User) => user.id });
 * const agent = createAgent({ model, tools, checkpointer, middleware: [plans.middleware(), reading.middleware(), tracker.middleware()] });
 */
export class PlanMode {
  readonly tool: StructuredToolInterface;
  /** Plans by {@link keyOf}: actor, tenant and thread. */
  private readonly plans = new Map<string, Plan>();
  /** By plan key and tool call: the previous plan's fingerprint the call's pending interrupt showed the user. */
  private readonly shown = new Map<string, string>();

  constructor(
    private readonly labels: ProvenanceLabels,
    private readonly contexts: ActionContextStore,
    private readonly options: PlanModeOptions = {},
  ) {
    this.tool = labelsOwnResults(
      tool(async (proposed: Plan, config: ToolConfig) => this.propose(proposed, config), {
        name: options.toolName ?? 'verdict_plan',
        description:
          'Propose the plan before reading anything untrusted: each capability you will call and, per argument, the ' +
          'untrusted sources (kind:name, as handles name them) its value may come from. Values the user gave need no source.',
        schema: planSchema,
      }),
    );
  }

  /** The agent middleware: offers the plan tool and runs every other tool call under the thread's plan. */
  middleware() {
    return createMiddleware({
      name: 'VerdictPlanMode',
      tools: [this.tool],
      wrapToolCall: async (request, handler) => {
        if (request.tool === this.tool) return handler(request);
        const key = this.keyOf(threadOf(request.runtime));
        return withPlan((key === undefined ? undefined : this.plans.get(key)) ?? null, () => handler(request));
      },
    });
  }

  private async propose(proposed: Plan, config: ToolConfig): Promise<string> {
    // Checked as the model wrote it (the schema drops a `__proto__` key): a plan that would refuse every call it
    // was meant to allow is refused now, neither kept nor recorded.
    const written = config.toolCall?.args;
    const problem = planProblem(
      typeof written === 'object' && written !== null ? written : proposed,
      this.options.isCapability,
    );
    if (problem !== undefined) return this.answer(problem);
    // One interrupt shows one plan, and LangGraph hands one resume value to every paused call: a second plan call
    // in the same message would be approved by the answer to the first.
    if (this.laterPlanCall(config))
      return this.answer('Plan refused: one plan per message; this message already proposed one.');
    const thread = threadOf(config);
    // Without a thread id, a kept plan would bind every other run without one: there is no plan to keep.
    if (thread === undefined)
      return this.answer("Plan refused: plan mode needs the run's thread id (configurable.thread_id) to keep a plan.");
    const key = this.keyOf(thread);
    // Without an actor and tenant, the plan would be every principal's who runs with this thread id.
    if (key === undefined)
      return this.answer("Plan refused: plan mode needs the run's action context (actor and tenant) to keep a plan.");
    const previous = this.plans.get(key);
    const fingerprint = planFingerprint(proposed);
    if (previous === undefined) {
      const window = currentProvenanceWindow();
      if (window === undefined || window.untrusted)
        return this.answer('Plan refused: a plan is made from trusted input only, before untrusted content is read.');
    } else if (planFingerprint(previous) !== fingerprint) {
      const refusal = this.askChange(key, config, proposed, fingerprint, planFingerprint(previous));
      if (refusal !== undefined) return this.answer(refusal);
    }
    rememberBounded(this.plans, key, proposed, PLAN_CAPACITY);
    emitSafely(
      this.options.events,
      PlanRecorded.event,
      new PlanRecorded(
        fingerprint,
        previous === undefined ? null : planFingerprint(previous),
        fingerprintString(thread),
        (this.options.clock ?? (() => new Date()))(),
      ),
    );
    return this.answer(`Plan accepted (${fingerprint.slice(0, 16)}).`);
  }

  /**
   * Asks the user for the change from `previous` to `proposed` (a LangGraph interrupt): `undefined` when approved
   * for the plan the interrupt showed, replacing the plan it showed as previous, otherwise the refusal's text. The
   * call runs again on resume: what its pause showed is kept here, by plan key and tool call, to be checked then.
   */
  private askChange(
    key: string,
    config: ToolConfig,
    proposed: Plan,
    fingerprint: string,
    previous: string,
  ): string | undefined {
    const call = JSON.stringify([key, typeof config.toolCall?.id === 'string' ? config.toolCall.id : null]);
    const shown = this.shown.get(call);
    let decision: { approved?: unknown; planFingerprint?: unknown } | undefined;
    try {
      decision = interrupt<PlanChangeInterrupt, typeof decision>({
        type: 'verdict_plan_change',
        planFingerprint: fingerprint,
        previousFingerprint: previous,
        plan: proposed,
      });
    } catch (error) {
      if (isGraphInterrupt(error)) rememberBounded(this.shown, call, previous, PLAN_CAPACITY);
      throw error;
    }
    this.shown.delete(call);
    if (decision?.approved !== true) return 'Plan change rejected by the user: the previous plan stays.';
    // LangGraph hands one resume value to every paused call: `{ approved: true }` alone may answer an application's
    // own question beside this one. Only an answer naming the plan shown approves it.
    if (decision.planFingerprint !== fingerprint)
      return 'Plan change refused: the approval does not name the plan shown (planFingerprint); the previous plan stays.';
    // Resumed without a pause of this call we know of, or another plan came in force since: the user approved
    // replacing a plan that is no longer the one this would replace.
    if (shown !== previous)
      return 'Plan change refused: the plan in force is no longer the one the user was shown as previous; it stays.';
    return undefined;
  }

  /** Whether this plan call follows another plan call of the same AI message. */
  private laterPlanCall(config: ToolConfig): boolean {
    const id = config.toolCall?.id;
    const messages = config.state?.messages;
    if (typeof id !== 'string' || !Array.isArray(messages)) return false;
    const message = (messages as unknown[]).findLast(
      (m): m is AIMessage => AIMessage.isInstance(m) && (m.tool_calls ?? []).some((call) => call.id === id),
    );
    const plans = (message?.tool_calls ?? []).filter((call) => call.name === this.tool.name);
    return plans.findIndex((call) => call.id === id) > 0;
  }

  /**
   * Whose plan a run has: the actor, the tenant and the thread. The thread id alone is the caller's choice (often
   * the client's): two principals given the same one must not share a plan. `undefined` without a thread id or
   * outside any action context. An actor without a stable key throws, as it does for quarantine handles.
   */
  private keyOf(thread: string | undefined): string | undefined {
    const context = this.contexts.current();
    if (thread === undefined || context === undefined) return undefined;
    return JSON.stringify([principalKeyOf(context, moduleActorKey(this.options)), thread]);
  }

  private answer(text: string): string {
    return rememberOwnText(this.labels, PLAN_SOURCE, text);
  }
}
