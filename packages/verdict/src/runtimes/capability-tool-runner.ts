import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import type { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { stopAtCallCeiling } from '../budgets/call-ceiling-stop.js';
import { Disposition } from '../decisions/disposition.js';
import { toolFault } from '../errors/tool-fault.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { ToolKind } from '../evidence/tool-kind.js';
import type { VerdictPipeline } from '../pipeline/verdict-pipeline.js';
import { publicAnswer } from '../public-answer.js';
import type { ExecutionResult } from '../vocabulary/execution-result.js';
import type { ContextLabeller } from '../provenance/context-labeller.js';
import { type ToolCallOutcome, runToolCall } from '../provenance/provenance-scope.js';
import type { ProvenanceWindow } from '../provenance/provenance-window.js';
import type { RuntimeCallWindows } from './runtime-call-windows.js';
import { labellerOf } from './window-labellers.js';

/** How many refusals of `needsApproval` a tool keeps for the executions that follow them. */
const REMEMBERED_REFUSALS = 1_000;

/** What a tool of another agent runtime (AI SDK, OpenAI Agents) made from a capability runs on. */
export interface RuntimeToolBinding {
  readonly capability: string;
  /** The tool's name as the runtime knows it (boot errors and faults name it). */
  readonly name: string;
  /** What the runtime is, for boot errors: `'an AI SDK tool'`. */
  readonly runtime: string;
  readonly pipeline: VerdictPipeline;
  readonly registry: CapabilityRegistry;
  readonly publicMessage: string;
  /**
   * Where the runtime's provenance tracker leaves each call's window, and the labeller that labels a result of a
   * call it saw when the window names no tracker's (ADR 0106). A call no tracker saw is unobserved.
   */
  readonly provenance?: { readonly windows: RuntimeCallWindows; readonly labeller: ContextLabeller };
}

/**
 * The runtime-neutral half of a bound tool in an agent runtime whose approvals are a yes/no question asked
 * before execution (`needsApproval`) and whose execution follows an approval (ADR 0089):
 *
 * - {@link needsApproval}: for a call that requires confirmation — its capability's own, or one its provenance policy
 *   requires in the call's window (ADR 0127) — the pipeline's asking run (`VerdictPipeline.ask`) issues (or finds) the
 *   pending receipt of the tool call and stops before the first durable gate: it never executes. The runtime asks a
 *   human only when a receipt awaits them. A refusal asks no one, and is what the execution that follows answers:
 *   the call is not run (nor counted by call ceilings) twice. A capability in shadow mode (`enforce: false`) asks no
 *   one: its execution records `would_confirm` and runs the call once.
 * - {@link answer}: the execution the runtime runs after an approval (or when none was needed). It carries the
 *   explicit approval, so a receipt decides — approved by a human, bound to these arguments, this actor, tenant and
 *   conversation, unexpired, consumed once — never the runtime's own approval flag, which a client may forge or
 *   replay. A call that needs no confirmation has no receipt to consume, and the approval changes nothing.
 *
 * Any fault becomes an `ApplicationFaultError` (unless the run was aborted, or it is a call ceiling a sub-agent
 * reached): never model-facing text.
 */
export class CapabilityToolRunner {
  /**
   * The refusals (`deny`, `throttle`) {@link needsApproval} answered, by tool call — its principal, conversation,
   * id and arguments ({@link RuntimeCallWindows.scopeOf}): the execution the runtime runs next for that same call
   * answers them as they were instead of running the call a second time (which call ceilings would count as two
   * proposals, two refusals). A call id is the model's or the client's choice: another actor or run reusing it
   * neither reads nor replaces a refusal it did not get. A refusal is never turned into an execution this way.
   */
  private readonly refusals = new Map<string, ExecutionResult>();

  constructor(private readonly binding: RuntimeToolBinding) {}

  /** The bound capability's definition; a configuration error when it is not (yet) declared. */
  definition(): CapabilityDefinition {
    const { registry, capability, name, runtime } = this.binding;
    const found = registry.find(capability);
    if (found === undefined)
      throw new VerdictConfigurationError(
        `Tool "${name}" (${runtime}) is bound to unknown capability "${capability}". Declare it with @Capability or defineCapability, and build the tool once the application has booted.`,
        { capability },
      );
    return found;
  }

  /** Whether the runtime must ask a human: a Verdict receipt awaits a decision on this tool call. */
  async needsApproval(input: unknown, toolCallId: string): Promise<boolean> {
    const definition = this.definition();
    if (definition.enforce === false) return false;
    // Only this answer is kept: a refusal kept for an earlier asking whose execution never came (an aborted step)
    // must not answer the execution that follows this one.
    const { scope, window } = this.placeOf(input, toolCallId);
    if (scope !== undefined) this.refusals.delete(scope);
    const proposal = { capability: this.binding.capability, arguments: input, toolCallId };
    const { pipeline } = this.binding;
    if (definition.requiresConfirmation === undefined) {
      const { result: confirms } = await this.within(window, toolCallId, undefined, () =>
        pipeline.provenanceConfirms(proposal),
      );
      if (!confirms) return false;
    }
    const { result: asked } = await this.within(window, toolCallId, undefined, () => pipeline.ask(proposal));
    const { disposition } = asked.decision;
    const refused = disposition === Disposition.Deny || disposition === Disposition.Throttle;
    if (!asked.executed && refused && scope !== undefined) this.rememberRefusal(scope, asked);
    return !asked.executed && asked.challenge !== undefined;
  }

  /**
   * Runs the call; the executor's output, or the public `not_executed` answer. A conversation that reached a call
   * ceiling is not answered: `CallCeilingReachedError` ends the agent run.
   */
  async answer(input: unknown, toolCallId: string, signal: AbortSignal | undefined): Promise<string> {
    const { scope, window } = this.placeOf(input, toolCallId);
    const refused = scope === undefined ? undefined : this.refusals.get(scope);
    if (scope !== undefined) this.refusals.delete(scope);
    const { capability, name, pipeline, provenance, publicMessage } = this.binding;
    const execute = () =>
      pipeline.execute({ capability, arguments: input, toolCallId }, ToolKind.Bound, { explicitApproval: true });
    const { result, carried } =
      refused === undefined ? await this.within(window, toolCallId, signal, execute) : { result: refused, carried: [] };
    stopAtCallCeiling(result, capability, name);
    const answer = publicAnswer(result, publicMessage);
    // The result of a call a tracker saw carries its capability's declared labels into the next window (untrusted
    // when an agent inside it read untrusted content, ADR 0040), found there by the call: another tool returning the
    // same text is its own tool's. Labelled by that tracker's options: a tool it names in `tools` is its source's.
    if (window !== undefined) {
      const labeller = labellerOf(window) ?? provenance!.labeller;
      const items = await this.faultsOf(signal, () => labeller.labelToolResult(answer, name, { capability }, carried));
      provenance!.windows.rememberResult(toolCallId, answer, items);
    }
    return answer;
  }

  /**
   * Where this call's refusal is kept (`scope`; `undefined`: not kept, the execution runs the call again) and the
   * window the runtime's tracker saw it proposed in (`window`; `undefined`: unobserved).
   */
  private placeOf(input: unknown, toolCallId: string): { scope?: string; window?: ProvenanceWindow } {
    return this.binding.provenance?.windows.placeOf({ id: toolCallId, input }) ?? {};
  }

  /** Keeps the refusal for the execution that follows; the oldest goes once too many were never followed. */
  private rememberRefusal(scope: string, result: ExecutionResult): void {
    if (this.refusals.size >= REMEMBERED_REFUSALS) this.refusals.delete(this.refusals.keys().next().value!);
    this.refusals.set(scope, result);
  }

  /**
   * Runs `step` of this tool's call in the window the call was proposed in, for this call only (as the LangChain
   * tracker runs a tool call): an agent inside it — a sub-agent in the executor — never proposes in it. Its bound
   * calls are unobserved unless its own tracker saw them, and a tracked one reads its input as trusted as this
   * window. Without a window (no tracker saw the call) the call is unobserved, whatever window encloses it. What
   * the agents inside handed back (`carried`) comes with the result.
   */
  private within<T>(
    window: ProvenanceWindow | undefined,
    toolCallId: string,
    signal: AbortSignal | undefined,
    step: () => Promise<T>,
  ): Promise<ToolCallOutcome<T>> {
    return this.faultsOf(signal, () => runToolCall(window, toolCallId, step));
  }

  /**
   * `step`, with any fault but its abort or a policy stop (see {@link toolFault}) as an `ApplicationFaultError`:
   * never model-facing text. A fault thrown after the signal aborted is still a fault: the AI SDK aborts one tool's
   * signal when its `toolMs` timeout passes, and hands the model the text of whatever the tool then throws. The
   * signal reaches neither the pipeline nor the executor, so the call runs on to its end after the abort: its output,
   * or its own fault — which an executor's own timeout names `TimeoutError` or `AbortError` as well.
   */
  private async faultsOf<T>(signal: AbortSignal | undefined, step: () => Promise<T>): Promise<T> {
    const { capability, name } = this.binding;
    try {
      return await step();
    } catch (error) {
      if (isAbortOf(signal, error)) throw error;
      throw toolFault(capability, name, error);
    }
  }
}

/**
 * Whether `error` is the abort of `signal` itself: its very reason (which an executor holding the application's own
 * signal, merged into this one, may throw). Never judged by its name: an error of the executor's own I/O named
 * `TimeoutError` or `AbortError` is a fault.
 */
function isAbortOf(signal: AbortSignal | undefined, error: unknown): boolean {
  return signal?.aborted === true && error === signal.reason;
}
