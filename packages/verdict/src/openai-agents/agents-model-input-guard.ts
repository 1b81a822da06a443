import type {
  AgentInputItem,
  AgentOutputItem,
  Model,
  ModelRequest,
  StreamEvent,
  UserMessageItem,
} from '@openai/agents';
import type { ReleaseRequest } from '../context-release/release-request.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { UnreleasedContextError } from '../errors/unreleased-context.error.js';
import { fingerprint, fingerprintString } from '../fingerprints/fingerprint.js';
import type { ProvenanceLabels } from '../provenance/provenance-labels.js';
import { KeptCalls, continuesNothing } from '../runtimes/provider-conversation.js';
import { releaseContext } from '../runtimes/released-context.js';
import { isPlainText } from '../runtimes/structured-text.js';
import { ToolResultRelease, type ToolResultReleaseOptions } from '../runtimes/tool-result-release.js';
import { admitsUserText, carriesNoData } from '../runtimes/unsealed-text.js';
import { rememberBounded } from '../shared/remember-bounded.js';
import {
  fieldsCarryNoData,
  inputItems,
  outputText,
  plainTexts,
  recordCarriesNoData,
  requestConversation,
  settingsCarryNoData,
} from './agents-input.js';
import { wrappedModel } from './wrapped-model.js';

/** How many released tool results and context messages a guard keeps. */
const REMEMBERED = 1_000;

const SYSTEM_REMEDY =
  'Register the agent’s instructions (systemPrompts); release data with contextMessage, not in instructions.';
const SETTINGS_REMEDY =
  'Instructions in modelSettings.providerData replace the agent’s: register them (systemPrompts); every other model setting holds no data (no nested record, array or structured text): release data with contextMessage.';
const TOOL_REMEDY =
  'A function result must answer, once, a function call of the model that precedes it in the input, under its name, and carry no data beside its output.';
const KEPT_TOOL_REMEDY =
  'A function result must answer, once, under its name, a function call of the model that precedes it in the input or that this guard saw the model propose in the response the request continues (in a stored conversation: its latest response), in this process.';
const ITEM_REMEDY =
  'Only function results have release routes: run shell, apply-patch and computer tools as function tools, or outside a guarded model.';

/**
 * Items the model or the provider wrote (answers, reasoning, calls, compacted history, hosted tools' calls and
 * results): they pass. A user or system message is checked, a function result released; any other item — the
 * output of a shell, apply-patch or computer tool run in the application, or a type this guard does not know —
 * holds data no route released and fails the run.
 */
const MODEL_ITEMS: ReadonlySet<string> = new Set([
  'reasoning',
  'compaction',
  'hosted_tool_call',
  'computer_call',
  'shell_call',
  'apply_patch_call',
]);

/**
 * Whether what a user or system message sends beside its content holds no data: its `providerData` record, and every
 * other field (`id`, which the Responses converter sends, or any field an application added).
 *
 * With `bare` (a system message): `providerData` holds nothing at all, not even plain prose. The converters spread it
 * into the message they send beside the registered prompt (the SDK's `system(input, options)` puts `options` there),
 * as they spread a system text part's, which holds nothing either ({@link plainTexts}).
 */
function messageFieldsCarryNoData(item: AgentInputItem, bare = false): boolean {
  const { role: _role, content: _content, type: _type, providerData, ...fields } = item as Record<string, unknown>;
  return (bare ? isEmptyRecord(providerData) : recordCarriesNoData(providerData)) && fieldsCarryNoData(fields);
}

/** Whether a record is absent or has no own field. */
function isEmptyRecord(record: unknown): boolean {
  if (record === undefined || record === null) return true;
  return typeof record === 'object' && !Array.isArray(record) && Object.keys(record).length === 0;
}

/** Options of an {@link AgentsModelInputGuard}: those of the LangChain guard that apply to OpenAI Agents. */
export interface AgentsModelInputGuardOptions extends ToolResultReleaseOptions {
  /** The agents' own instructions, as plain text: a model call passes only with one of these (or none). Default: none. */
  readonly systemPrompts?: readonly string[];
  /** Where the labels of released context go, so that a provenance tracker labels a `contextMessage` by its release. */
  readonly provenanceLabels?: ProvenanceLabels;
}

/**
 * The model-input guard for OpenAI Agents JS, as a wrapper around an agent's `Model` (docs/runtimes/openai-agents.md,
 * ADR 0107): the routes and public message of the LangChain `ModelInputGuard`, applied to every model call's
 * input before the provider is called.
 * - Every function result in the input is released through its function's route (`toolResults`), or passes as
 *   Verdict's own `not_executed` answer re-serialized; a function without a route, or a refused release, fails the
 *   run (`UnreleasedContextError`, `ContextReleaseRefusedError`). A result is released once per guard, not at
 *   every turn. A function result must answer, once, a function call that precedes it — in the input, or in the
 *   response or stored conversation the request continues on the provider's side (`previousResponseId`,
 *   `conversationId`), as this guard saw the model propose it in this process — and its other fields (`id`, `status`,
 *   `caller`, which the Responses converter sends) hold no data.
 * - The instructions must be a registered prompt (`systemPrompts`) or none; a user message must be text-only prose
 *   (no structured data, no hidden encodings) unless it is a `contextMessage` this guard released. A user or system
 *   message is a string or text parts, and what is sent beside its text (`providerData`, its `id` and other fields,
 *   a part's other fields; a system message has no `providerData` field, and a system text part no field but a
 *   prompt-cache breakpoint) holds no data.
 * - The model settings, which the SDK's models send beside the input (ADR 0132): `instructions` in their
 *   `providerData` (or its extra body), which replaces the agent's, passes as the instructions do, and every other
 *   setting, of `providerData` too, holds no data.
 * What the SDK's design leaves out: the history (model answers, function calls) lives in the application's
 * `RunState` and the model's items carry no field the guard could seal without it being sent to the provider; the
 * guard does not tell the model's own answers from items a client wrote into a state. Keep `RunState` strings on
 * the server (never round-trip them through a browser); placeholder restoration (`vault`, `restore`) is not
 * offered in this form.
 *
 * @example
 * const guard = guards.forDestination(Destination.connection('openai', 'eu'), { toolResults: { orders_view: orderRoute }, systemPrompts: [instructions] });
 * const agent = new Agent({ name: 'Support', instructions, model: tracker.model(guard.model(base)), tools });
 */
export class AgentsModelInputGuard {
  private readonly destinationName: string;
  private readonly release: ToolResultRelease;
  private readonly prompts: ReadonlySet<string>;
  private readonly released = new Map<string, string>();
  private readonly context = new Map<string, true>();
  /**
   * The function calls (id → function name) the model proposed in each response this guard passed, by response id,
   * and the latest response's in each stored conversation, by conversation id: what a request that continues one on
   * the provider's side (`previousResponseId`, `conversationId`), whose input holds the results alone, answers.
   */
  private readonly kept = new KeptCalls<string | undefined>();

  constructor(private readonly options: AgentsModelInputGuardOptions) {
    // First: checks the destination and the routes before anything reads them.
    this.release = new ToolResultRelease(options);
    this.destinationName = options.destination.toString();
    const prompts = options.systemPrompts ?? [];
    for (const prompt of prompts)
      if (!isPlainText(prompt))
        throw new VerdictConfigurationError(
          'AgentsModelInputGuard: instructions must be plain text, without structured data or invisible characters; release data with contextMessage.',
        );
    this.prompts = new Set(prompts);
  }

  /**
   * Releases structured context for this destination as a user message for the run's input; this guard lets its
   * exact text through (in this process).
   */
  async contextMessage(request: Omit<ReleaseRequest, 'destination'>): Promise<UserMessageItem> {
    const content = await releaseContext(this.options, request);
    rememberBounded(this.context, fingerprintString(content), true, REMEMBERED);
    return { role: 'user', content };
  }

  /** `inner`, guarded: each call's input is admitted and its function results released before `inner` sees it. */
  model(inner: Model): Model {
    return wrappedModel(inner, {
      getResponse: async (request) => {
        const response = await inner.getResponse(await this.admit(request));
        this.keep(request, response.responseId, response.output);
        return response;
      },
      getStreamedResponse: (request) => this.streamed(inner, request),
    });
  }

  private async *streamed(inner: Model, request: ModelRequest): AsyncIterable<StreamEvent> {
    for await (const event of inner.getStreamedResponse(await this.admit(request))) {
      // The runner sends the results once the response is done: its calls are kept before the event goes on.
      if (event.type === 'response_done')
        this.keep(request, event.response.id, event.response.output as unknown as AgentOutputItem[]);
      yield event;
    }
  }

  /**
   * Keeps the function calls a response proposed under its id and the stored conversations its request is part of: the
   * provider holds them, and a request that continues it sends their results alone. The model proposed them — the
   * response came through this guard — so their results may answer them there, once per request, under their names;
   * in a stored conversation, only the calls of its latest response (the runner sends each response's results in the
   * request that follows it: {@link KeptCalls}).
   */
  private keep(request: ModelRequest, responseId: string | undefined, output: readonly AgentOutputItem[]): void {
    const calls = new Map<string, string | undefined>();
    for (const item of output) {
      const call = item as { type?: string; callId?: unknown; name?: unknown };
      if (call.type === 'function_call' && typeof call.callId === 'string')
        calls.set(call.callId, typeof call.name === 'string' ? call.name : undefined);
    }
    // The guard is not bound to a principal: its calls are kept under the provider's ids alone.
    this.kept.keep(null, requestConversation(request), responseId, calls);
  }

  /** The request with every function result released. @throws UnreleasedContextError for the first item that may not go. */
  private async admit(request: ModelRequest): Promise<ModelRequest> {
    const instructions = request.systemInstructions;
    if (instructions !== undefined && !this.admitsInstructions(instructions))
      throw new UnreleasedContextError('The instructions', this.destinationName, SYSTEM_REMEDY);
    // The models spread the provider data into the request last: its instructions replace the ones just checked.
    if (!settingsCarryNoData(request.modelSettings, (text) => this.admitsInstructions(text)))
      throw new UnreleasedContextError('The model settings', this.destinationName, SETTINGS_REMEDY);
    // A stored prompt's variables are sent with it: plain text only, as a user would type it.
    const variables = Object.values(request.prompt?.variables ?? {});
    if (!variables.every((value) => typeof value === 'string' && carriesNoData([value])))
      throw new UnreleasedContextError('The prompt variables', this.destinationName, SYSTEM_REMEDY);
    /**
     * Each function call of the input by id — and of the response or stored conversation the request continues, as this
     * guard saw the model propose them — with its function's name, and whether a result answered it.
     */
    const continues = requestConversation(request);
    const pending = this.kept.pending(null, continues);
    const remedy = continuesNothing(continues) ? TOOL_REMEDY : KEPT_TOOL_REMEDY;
    const admitted: AgentInputItem[] = [];
    for (const [index, item] of inputItems(request).entries()) {
      const any = item as {
        role?: string;
        type?: string;
        content?: unknown;
        callId?: string;
        output?: unknown;
        name?: string;
        providerData?: unknown;
      };
      const what = `Input item ${index} (${any.type ?? any.role})`;
      if (any.role === 'system') {
        // The converters send a system message's content as it is: a registered prompt (or nothing) in text parts
        // with nothing beside their text; and its id and providerData fields with it, providerData holding nothing.
        const text = plainTexts(any.content, true)?.join('\n');
        if (
          text === undefined ||
          (text.trim() !== '' && !this.prompts.has(text)) ||
          !messageFieldsCarryNoData(item, true)
        )
          throw new UnreleasedContextError(what, this.destinationName, SYSTEM_REMEDY);
      } else if (any.role === 'user') {
        // The Responses converter sends a message's id and providerData fields with it, and a text part's with the part.
        if (!this.admitsUser(any.content) || !messageFieldsCarryNoData(item))
          throw new UnreleasedContextError(what, this.destinationName);
      } else if (any.type === 'function_call') {
        if (any.callId === undefined) throw new UnreleasedContextError(what, this.destinationName, TOOL_REMEDY);
        pending.set(any.callId, { name: any.name, answered: false });
      } else if (any.type === 'function_call_result') {
        // A result renamed after another function would be released through that function's route.
        const call = any.callId === undefined ? undefined : pending.get(any.callId);
        if (call === undefined || call.answered || call.name !== any.name)
          throw new UnreleasedContextError(what, this.destinationName, remedy);
        // Its output is released, its providerData dropped; every other field goes with it (the Responses converter
        // sends its `id`, `status` and `caller`): plain text or a scalar, or a record of those, as on a user message.
        const {
          providerData: _forwarded,
          type: _type,
          callId: _callId,
          name: _name,
          output: _output,
          ...fields
        } = item as Record<string, unknown>;
        if (!fieldsCarryNoData(fields)) throw new UnreleasedContextError(what, this.destinationName, TOOL_REMEDY);
        call.answered = true;
        const value = await this.releasedOutput(any.name ?? '', any.callId!, outputText(any.output));
        const { providerData: _dropped, ...result } = item as typeof any;
        admitted.push({
          ...result,
          output: typeof any.output === 'string' ? value : { type: 'text', text: value },
        } as AgentInputItem);
        continue;
      } else if (any.role !== 'assistant' && !MODEL_ITEMS.has(any.type ?? ''))
        throw new UnreleasedContextError(what, this.destinationName, ITEM_REMEDY);
      admitted.push(item);
    }
    return { ...request, input: admitted };
  }

  /** Whether instructions may go: empty, or a registered prompt. */
  private admitsInstructions(text: string): boolean {
    return text.trim() === '' || this.prompts.has(text);
  }

  private admitsUser(content: unknown): boolean {
    const texts = plainTexts(content);
    if (texts === undefined) return false;
    if (this.context.has(fingerprintString(texts.join('\n')))) return true;
    return admitsUserText(texts);
  }

  private async releasedOutput(name: string, callId: string, text: string): Promise<string> {
    const key = fingerprint([name, callId, fingerprintString(text)]);
    let value = this.released.get(key);
    if (value === undefined) {
      value = await this.release.release(text, name, undefined);
      rememberBounded(this.released, key, value, REMEMBERED);
    }
    return value;
  }
}
