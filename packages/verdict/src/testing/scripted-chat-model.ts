import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
  type LangSmithParams,
} from '@langchain/core/language_models/chat_models';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';

/**
 * A tool call that a {@link ScriptedChatModel} turn makes the model emit.
 *
 * @example
 * const call: ScriptedToolCall = { name: 'orders_cancel', args: { orderId: 1002 }, id: 'call-1' };
 */
export interface ScriptedToolCall {
  /** Name of the tool to call (must match a bound tool for the agent to run it). */
  name: string;
  /** Arguments, exactly as a provider would return them after JSON parsing. */
  args: Record<string, unknown>;
  /** Tool-call id; the resulting ToolMessage carries it back as `tool_call_id`. */
  id: string;
}

/**
 * A turn in which the model asks for one or more tool calls (optionally with some text).
 *
 * @example
 * const turn: ScriptedToolCallTurn = { text: 'Cancelling.', toolCalls: [{ name: 'orders_cancel', args: { orderId: 1002 }, id: 'call-1' }] };
 */
export interface ScriptedToolCallTurn {
  toolCalls: ScriptedToolCall[];
  text?: string;
  /** The usage the "provider" reports for this turn (`usage_metadata`); none when omitted. */
  usage?: ScriptedUsage;
}

/**
 * Token usage a scripted turn reports, as a provider would (`AIMessage.usage_metadata`).
 *
 * @example
 * const turn: ScriptedTextTurn = { text: 'Done.', usage: { input: 120, output: 8 } };
 */
export interface ScriptedUsage {
  input: number;
  output: number;
}

/**
 * A turn in which the model answers with text only; in an agent loop this ends the run.
 *
 * @example
 * const turn: ScriptedTextTurn = { text: 'Your order is cancelled.' };
 */
export interface ScriptedTextTurn {
  text: string;
  toolCalls?: undefined;
  /** The usage the "provider" reports for this turn (`usage_metadata`); none when omitted. */
  usage?: ScriptedUsage;
}

/**
 * One scripted model response.
 *
 * @example
 * const turns: ScriptedTurn[] = [{ toolCalls: [{ name: 'lookup_order', args: { orderId: 'o-1' }, id: 'call-1' }] }, { text: 'Shipped.' }];
 */
export type ScriptedTurn = ScriptedToolCallTurn | ScriptedTextTurn;

/**
 * What an adaptive script step can see when it is asked for its turn.
 *
 * @example
 * const step: ScriptedTurnFactory = (_messages, { turn, boundTools }) => ({ text: `turn ${turn}: ${boundTools.map((t) => t.name).join(', ')}` });
 */
export interface ScriptedTurnContext {
  /** Zero-based index of the turn being produced. */
  turn: number;
  /** Tools bound to the model instance that is being invoked. */
  boundTools: readonly BoundToolInfo[];
}

/**
 * An adaptive script step: computes the turn from the messages the model is shown.
 * It may be async. Throwing from it simulates a provider error (the error propagates
 * out of the model call unchanged).
 *
 * @example
 * // Answer with what the last tool returned.
 * const echo: ScriptedTurnFactory = (messages) => ({ text: `Result: ${String(messages.at(-1)?.content)}` });
 */
export type ScriptedTurnFactory = (
  messages: readonly BaseMessage[],
  context: ScriptedTurnContext,
) => ScriptedTurn | Promise<ScriptedTurn>;

/**
 * A script entry: a fixed turn or a function of the conversation so far.
 *
 * @example
 * const script: ScriptStep[] = [{ toolCalls: [{ name: 'lookup_order', args: { orderId: 'o-1' }, id: 'call-1' }] }, (messages) => ({ text: `${messages.length} messages` })];
 */
export type ScriptStep = ScriptedTurn | ScriptedTurnFactory;

/**
 * Name, description and JSON schema of a tool bound with {@link ScriptedChatModel.bindTools}.
 *
 * @example
 * expect(model.lastBoundTools.map((tool: BoundToolInfo) => tool.name)).toEqual(['orders_cancel']);
 */
export interface BoundToolInfo {
  name: string;
  description?: string;
  /** JSON schema of the tool's parameters as a provider would receive it (OpenAI function format). */
  schema?: unknown;
}

/**
 * Everything recorded about one call of the model.
 *
 * @example
 * const [first]: readonly ScriptedTurnRecord[] = model.turns;
 * expect(first?.response?.tool_calls).toHaveLength(1);
 */
export interface ScriptedTurnRecord {
  /** Zero-based turn index (equal to the index in {@link ScriptedChatModel.transcript}). */
  turn: number;
  /** The exact message list the model was invoked with (array copied; message objects by reference). */
  messages: BaseMessage[];
  /** Tools bound to the invoked model instance (empty when the model was invoked without `bindTools`). */
  boundTools: BoundToolInfo[];
  /** `tool_choice` passed at bind or call time, if any. */
  toolChoice?: unknown;
  /** The message the model returned; undefined when the call failed (e.g. exhausted script). */
  response?: AIMessage;
}

/**
 * A ToolMessage that the model was shown, flattened for assertions.
 *
 * @example
 * const shown: ShownToolMessage[] = model.toolMessages();
 * expect(shown).toMatchObject([{ tool_call_id: 'call-1', content: 'This action was not performed.' }]);
 */
export interface ShownToolMessage {
  /** First turn whose input contained this message. */
  turn: number;
  tool_call_id: string;
  name: string | undefined;
  content: ToolMessage['content'];
  status: ToolMessage['status'];
}

/**
 * A tool call the model emitted, with the turn that emitted it.
 *
 * @example
 * const emitted: EmittedToolCall[] = model.emittedToolCalls();
 * expect(emitted).toEqual([{ turn: 0, name: 'lookup_order', args: { orderId: 'o-1' }, id: 'call-1' }]);
 */
export interface EmittedToolCall extends ScriptedToolCall {
  turn: number;
}

/**
 * Options for {@link ScriptedChatModel}.
 *
 * @example
 * const reviewer = new ScriptedChatModel([{ text: 'Looks fine.' }], { label: 'reviewer' });
 */
export interface ScriptedChatModelOptions extends BaseChatModelParams {
  /** Label used in error messages, handy when one test drives several models. */
  label?: string;
  /** The model name it reports (`ls_model_name`), as a provider's chat model does; none when omitted. */
  model?: string;
  /** The most output tokens it declares (`ls_max_tokens`), as `maxTokens` of a provider's chat model; none when omitted. */
  maxTokens?: number;
}

/**
 * Thrown when the model is called after its script ran out: the agent looped more often than the test expected.
 *
 * @example
 * await expect(agent.invoke(input)).rejects.toThrow(ScriptExhaustedError);
 */
export class ScriptExhaustedError extends Error {
  override name = 'ScriptExhaustedError';

  constructor(
    /** Zero-based index of the turn that was requested. */
    readonly turn: number,
    /** Number of turns in the script. */
    readonly scriptLength: number,
    lastMessage: BaseMessage | undefined,
    label: string,
  ) {
    super(
      `${label}: script exhausted: the model was called for turn ${turn + 1} but the script has only ` +
        `${scriptLength} turn(s), so the agent looped more often than the test expected. ` +
        `Last message shown to the model: ${describeMessage(lastMessage)}`,
    );
  }
}

/** Shared between a model and every copy produced by `bindTools`, so they consume one script. */
interface SharedState {
  readonly script: readonly ScriptStep[];
  readonly label: string;
  readonly model: string | undefined;
  readonly maxTokens: number | undefined;
  cursor: number;
  readonly turns: ScriptedTurnRecord[];
  readonly bindings: BoundToolInfo[][];
}

/**
 * A deterministic chat model for tests: each call returns the next turn of a script instead of asking a
 * provider, and records what the model was shown.
 *
 * It is a test double for the model provider only. Passed to a real `createAgent` from `langchain`, the
 * agent graph, tool node, middleware and tools all run for real; the script decides which tool calls the
 * "model" emits, and {@link transcript} / {@link toolMessages} show what came back.
 *
 * - Each `_generate` call consumes one turn; when the script is exhausted it throws {@link ScriptExhaustedError}.
 * - {@link bindTools} returns a copy that shares the script cursor and records, and records the bound tools.
 *   The root model itself has no `tools` property, so `createAgent`'s "model already has bound tools" check
 *   passes on every turn.
 * - Streaming needs nothing extra: the model does not override `_streamResponseChunks`, so `stream()` and
 *   LangGraph's `messages` stream mode fall back to `_generate` and deliver the whole message as one chunk.
 *
 * @example
 * ```ts
 * const model = new ScriptedChatModel([
 *   { toolCalls: [{ name: 'lookup_order', args: { orderId: 'o-1' }, id: 'call-1' }] },
 *   { text: 'Your order has shipped.' },
 * ]);
 * const agent = createAgent({ model, tools: [lookupOrder] });
 * await agent.invoke({ messages: [{ role: 'user', content: 'Where is o-1?' }] });
 * expect(model.toolMessages()).toMatchObject([{ tool_call_id: 'call-1', content: 'shipped' }]);
 * ```
 */
export class ScriptedChatModel extends BaseChatModel {
  private shared: SharedState;
  private bound: { tools: BoundToolInfo[]; toolChoice?: unknown } | undefined;

  /**
   * @param script turns in the order the model should produce them
   * @param options base chat model params plus an optional `label` for error messages
   */
  constructor(script: readonly ScriptStep[], options: ScriptedChatModelOptions = {}) {
    const { label = 'ScriptedChatModel', model, maxTokens, ...params } = options;
    super(params);
    script.forEach((step, index) => {
      if (typeof step !== 'function') validateTurn(step, index, label);
    });
    this.shared = { script: [...script], label, model, maxTokens, cursor: 0, turns: [], bindings: [] };
  }

  /** LangChain's tracing facts, with the `model` name and `maxTokens` given to the constructor. */
  override getLsParams(options: this['ParsedCallOptions']): LangSmithParams {
    return { ...super.getLsParams(options), ls_model_name: this.shared.model, ls_max_tokens: this.shared.maxTokens };
  }

  static override lc_name(): string {
    return 'ScriptedChatModel';
  }

  _llmType(): string {
    return 'scripted';
  }

  /**
   * Returns a model that shares this model's script cursor and records, with `tools` recorded as bound.
   * `createAgent` calls this before every model turn.
   */
  override bindTools(tools: BindToolsInput[], kwargs?: Partial<BaseChatModelCallOptions>): ScriptedChatModel {
    const copy = new ScriptedChatModel([], { label: this.shared.label });
    copy.shared = this.shared;
    const infos = [...(this.bound?.tools ?? []), ...tools.map(describeTool)];
    copy.bound = { tools: infos, toolChoice: kwargs?.tool_choice ?? this.bound?.toolChoice };
    this.shared.bindings.push(infos);
    return copy;
  }

  /** Tools bound to this instance (empty on the root model); see {@link lastBoundTools} for the latest binding. */
  get boundTools(): readonly BoundToolInfo[] {
    return this.bound?.tools ?? [];
  }

  /** Tools of the most recent `bindTools` call on this model or any of its copies. */
  get lastBoundTools(): readonly BoundToolInfo[] {
    return this.shared.bindings.at(-1) ?? [];
  }

  /** Every `bindTools` call, in order. */
  get bindings(): readonly (readonly BoundToolInfo[])[] {
    return this.shared.bindings;
  }

  /** One record per model call, including a final failed call if the script ran out. */
  get turns(): readonly ScriptedTurnRecord[] {
    return this.shared.turns;
  }

  /** The input messages of every model call: `transcript[n]` is what the model was shown on turn `n`. */
  get transcript(): BaseMessage[][] {
    return this.shared.turns.map((record) => record.messages);
  }

  /** Number of times the model was called (including a call that failed on an exhausted script). */
  get callCount(): number {
    return this.shared.turns.length;
  }

  /** Number of script turns not yet consumed. */
  get remainingTurns(): number {
    return Math.max(0, this.shared.script.length - this.shared.cursor);
  }

  /** Throws unless every scripted turn was consumed, i.e. the agent stopped earlier than the test expected. */
  assertScriptConsumed(): void {
    if (this.remainingTurns > 0) {
      throw new Error(
        `${this.shared.label}: ${this.remainingTurns} scripted turn(s) were never used; ` +
          `the model was called ${this.shared.cursor} time(s) for a script of ${this.shared.script.length}.`,
      );
    }
  }

  /** The ToolMessages in the input of one turn, in order. */
  toolMessagesShownOn(turn: number): ShownToolMessage[] {
    const record = this.shared.turns[turn];
    if (!record)
      throw new RangeError(`${this.shared.label}: no turn ${turn} (the model was called ${this.callCount} time(s))`);
    return record.messages.filter((m) => ToolMessage.isInstance(m)).map((message) => flattenToolMessage(message, turn));
  }

  /**
   * Every distinct ToolMessage the model was shown, in order of first appearance. A message shown again on
   * later turns (the agent resends history) appears once; if its content changed in between, each version
   * appears.
   */
  toolMessages(): ShownToolMessage[] {
    const seen = new Set<string>();
    const result: ShownToolMessage[] = [];
    this.shared.turns.forEach((record) => {
      for (const message of record.messages) {
        if (!ToolMessage.isInstance(message)) continue;
        const key = JSON.stringify([message.id ?? null, message.tool_call_id, message.status ?? null, message.content]);
        if (seen.has(key)) continue;
        seen.add(key);
        result.push(flattenToolMessage(message, record.turn));
      }
    });
    return result;
  }

  /** Every tool call the model emitted, in order. */
  emittedToolCalls(): EmittedToolCall[] {
    return this.shared.turns.flatMap((record) =>
      (record.response?.tool_calls ?? []).map((call) => ({
        turn: record.turn,
        name: call.name,
        args: call.args,
        id: call.id ?? '',
      })),
    );
  }

  /** @internal Consumes the next turn of the script. */
  async _generate(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const { shared } = this;
    const turn = shared.cursor;
    const record: ScriptedTurnRecord = {
      turn,
      messages: [...messages],
      boundTools: [...(this.bound?.tools ?? [])],
      toolChoice: options.tool_choice ?? this.bound?.toolChoice,
    };
    shared.turns.push(record);

    const step = shared.script[turn];
    if (step === undefined) throw new ScriptExhaustedError(turn, shared.script.length, messages.at(-1), shared.label);
    shared.cursor += 1;

    const scripted =
      typeof step === 'function' ? await step(record.messages, { turn, boundTools: record.boundTools }) : step;
    if (typeof step === 'function') validateTurn(scripted, turn, shared.label);

    const toolCalls = (scripted.toolCalls ?? []).map((call) => ({
      name: call.name,
      // A copy, parsed as a provider's tool call is: plain JSON of this realm (`structuredClone` makes objects of
      // Node's main realm, which are not plain objects inside a vm context such as a test runner's).
      args: JSON.parse(JSON.stringify(call.args)) as Record<string, unknown>,
      id: call.id,
      type: 'tool_call' as const,
    }));
    const text = scripted.text ?? '';
    const usage = scripted.usage;
    const message = new AIMessage({
      content: text,
      tool_calls: toolCalls,
      ...(usage === undefined
        ? {}
        : {
            usage_metadata: {
              input_tokens: usage.input,
              output_tokens: usage.output,
              total_tokens: usage.input + usage.output,
            },
          }),
    });
    record.response = message;
    return { generations: [{ text, message }] };
  }
}

function validateTurn(turn: unknown, index: number, label: string): asserts turn is ScriptedTurn {
  const where = `${label}: script turn ${index}`;
  if (typeof turn !== 'object' || turn === null) throw new TypeError(`${where} must be an object, got ${String(turn)}`);
  const { text, toolCalls } = turn as { text?: unknown; toolCalls?: unknown };
  if (text !== undefined && typeof text !== 'string') throw new TypeError(`${where}: text must be a string`);
  if (toolCalls === undefined) {
    if (text === undefined) throw new TypeError(`${where} needs \`text\` or \`toolCalls\``);
    return;
  }
  if (!Array.isArray(toolCalls) || toolCalls.length === 0) {
    throw new TypeError(`${where}: toolCalls must be a non-empty array (use { text } for a final answer)`);
  }
  toolCalls.forEach((call: unknown, i) => {
    const c = call as Partial<ScriptedToolCall> | null;
    if (!c || typeof c.name !== 'string' || c.name === '')
      throw new TypeError(`${where}, tool call ${i}: name is required`);
    if (typeof c.id !== 'string' || c.id === '')
      throw new TypeError(`${where}, tool call ${i} (${c.name}): id is required`);
    if (typeof c.args !== 'object' || c.args === null || Array.isArray(c.args)) {
      throw new TypeError(`${where}, tool call ${i} (${c.name}): args must be an object`);
    }
  });
}

/** Each tool's description, converted once: an agent binds the same tools again on every model turn. */
const described = new WeakMap<object, BoundToolInfo>();

function describeTool(tool: BindToolsInput): BoundToolInfo {
  const known = typeof tool === 'object' && tool !== null ? described.get(tool) : undefined;
  if (known !== undefined) return known;
  const info = convertedTool(tool);
  if (typeof tool === 'object' && tool !== null) described.set(tool, info);
  return info;
}

function convertedTool(tool: BindToolsInput): BoundToolInfo {
  try {
    const { function: fn } = convertToOpenAITool(tool);
    return { name: fn.name, description: fn.description, schema: fn.parameters };
  } catch {
    // Provider-specific (server-side) tool definitions cannot be converted; keep what identifies them.
    const raw = tool as { name?: unknown; type?: unknown; description?: unknown };
    const name = typeof raw.name === 'string' ? raw.name : typeof raw.type === 'string' ? raw.type : '<unknown>';
    return { name, description: typeof raw.description === 'string' ? raw.description : undefined };
  }
}

function flattenToolMessage(message: ToolMessage, turn: number): ShownToolMessage {
  return {
    turn,
    tool_call_id: message.tool_call_id,
    name: message.name,
    content: message.content,
    status: message.status,
  };
}

function describeMessage(message: BaseMessage | undefined): string {
  if (!message) return '(none)';
  const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  const preview = content.length > 200 ? `${content.slice(0, 200)}…` : content;
  const extra = ToolMessage.isInstance(message) ? ` (tool_call_id=${message.tool_call_id})` : '';
  return `${message.getType()}${extra}: ${JSON.stringify(preview)}`;
}
