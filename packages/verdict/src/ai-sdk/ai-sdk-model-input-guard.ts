import type { LanguageModelMiddleware, SystemModelMessage, UserModelMessage } from 'ai';
import type { ReleaseRequest } from '../context-release/release-request.js';
import { UnreleasedContextError } from '../errors/unreleased-context.error.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { fingerprint, fingerprintString } from '../fingerprints/fingerprint.js';
import type { ProvenanceLabels } from '../provenance/provenance-labels.js';
import {
  KeptCalls,
  type PendingCall,
  type ProviderConversation,
  providerOptionsConversation,
} from '../runtimes/provider-conversation.js';
import { releaseContext } from '../runtimes/released-context.js';
import { labelContent } from '../provenance/labelled-content.js';
import { ProvenanceSource } from '../provenance/provenance-source.js';
import {
  type ReleaseLabel,
  parseReleaseLabel,
  releaseLabelText,
  vouchesForPrincipal,
} from '../runtimes/release-label.js';
import { ContentSeal } from '../runtimes/content-seal.js';
import { isPlainText } from '../runtimes/structured-text.js';
import { ToolResultRelease, type ToolResultReleaseOptions } from '../runtimes/tool-result-release.js';
import { admitsUserText, carriesNoData, controlsCarryNoData, isPlainProse } from '../runtimes/unsealed-text.js';
import { rememberBounded } from '../shared/remember-bounded.js';
import { type AiSdkMessage, type AiSdkPrompt, partsText, toolResultText } from './ai-sdk-prompt.js';

type GenerateOptions = Parameters<NonNullable<LanguageModelMiddleware['wrapGenerate']>>[0];
type GenerateResult = Awaited<ReturnType<GenerateOptions['doGenerate']>>;
type StreamPart =
  Awaited<ReturnType<GenerateOptions['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;
type ProviderOptions = Record<string, Record<string, string>>;

/**
 * Where the guard's seal travels: the `verdict` entry of a part's provider metadata / options (with a released
 * context message's label beside it, ADR 0210).
 */
export const SEAL_NAMESPACE = 'verdict';
/** How many released tool results a guard keeps, so that the same result is released once, not every step. */
const REMEMBERED_RELEASES = 1_000;

const SYSTEM_REMEDY =
  'Register the application’s own prompt (systemPrompts) or seal it (guard.systemPrompt(text)); release data with contextMessage.';
const ANSWER_REMEDY =
  'The guard seals every answer the model gives; history from before the guard passes only with acceptUnsealedHistory: "prose", and only as plain prose without tool calls.';
const TOOL_REMEDY =
  'A tool result must answer, once, a tool call the model made through this guard (the latest model message that issued its id, or the response the call continues — in a stored conversation, its latest response — in this process).';

const CALL_OPTIONS_REMEDY =
  'A provider’s instructions are a system prompt: register it (systemPrompts) or seal it (spread guard.systemPrompt(text).providerOptions into the call’s); every other provider option holds no data (no object, array or structured text): release data with contextMessage.';

const APPROVAL_REMEDY =
  'An approval response is an id, a yes or no, and an optional plain-text reason: release data with contextMessage.';

/** Options of an {@link AiSdkModelInputGuard}: those of the LangChain guard that apply to the AI SDK. */
export interface AiSdkModelInputGuardOptions extends ToolResultReleaseOptions {
  /**
   * The seal key, shared by processes that resume each other's generations: at least 32 bytes (`randomBytes(32)`;
   * anything else is a `VerdictConfigurationError` when the guard is built); default random per guard. Seals of
   * model answers are bound to `conversation` (from `AiSdkModelInputGuards`: the actor's key, the tenant and
   * `metadata.conversationId` of the action context; none without one).
   */
  readonly sealKey?: Uint8Array;
  /** The application's own system prompts, as plain text: a system message passes unsealed only when it is exactly one of these (or empty). */
  readonly systemPrompts?: readonly string[];
  /** Unsealed assistant messages in the prompt: `'none'` (default) refuses them; `'prose'` lets plain prose through. */
  readonly acceptUnsealedHistory?: 'none' | 'prose';
  /** Where the labels of released context go, so that a provenance tracker labels a `contextMessage` by its release. */
  readonly provenanceLabels?: ProvenanceLabels;
  /**
   * Whose conversation a model call runs in — what answers' seals are bound to: `AiSdkModelInputGuards` binds the
   * principal (actor key and tenant) and `metadata.conversationId`; default none (for a guard made by hand).
   */
  readonly conversation?: () => string | null;
}

/**
 * The model-input guard as an AI SDK language-model middleware (docs/runtimes/ai-sdk.md, ADR 0107): the same
 * routes, public message and seal rules as the LangChain `ModelInputGuard` (docs/context-release.md), applied to
 * the prompt of every `generateText` / `streamText` step before the provider is called.
 * - Every tool result in the prompt is released through its tool's route (`toolResults`), or passes as
 *   Verdict's own `not_executed` answer re-serialized; a tool without a route, or a refused release, rejects the
 *   generation (`UnreleasedContextError`, `ContextReleaseRefusedError`). A result is released once per guard and
 *   call, not at every step.
 * - Every message must carry the guard's seal or pass the unsealed rules: user prose (text only, no structured
 *   data or hidden encodings), a registered or empty system prompt, and only with `acceptUnsealedHistory:
 *   'prose'` assistant prose. The model's answers (text, reasoning and tool calls) are sealed as they come back,
 *   in their provider metadata (`providerMetadata.verdict`), which the SDK carries into the next step's prompt; a
 *   part's seal covers the provider's own metadata of the part too (an encrypted reasoning, a signature).
 *   A tool result must answer, once, a tool call of the latest assistant message that issued its id — or, in a call
 *   that continues a response or stored conversation the provider keeps (`previousResponseId`, `conversation`), whose
 *   prompt holds only the new messages, a call this guard saw the model propose there, in this process, for the same
 *   principal and conversation.
 * - The call's own provider options, which a provider sends beside the prompt: any provider's `instructions` passes
 *   as a system prompt, and every other option must hold no data (ADR 0132).
 * Not in this form: placeholder restoration (`vault`, `restore`), which needs a tool-call hook the middleware
 * does not have.
 *
 * @example
 * const guard = guards.forDestination(Destination.connection('openai', 'eu'), { toolResults: { lookup_order: orderRoute } });
 * const model = wrapLanguageModel({ model: base, middleware: [tracker.middleware(), guard.middleware()] });
 */
export class AiSdkModelInputGuard {
  private readonly seal: ContentSeal;
  private readonly destinationName: string;
  private readonly release: ToolResultRelease;
  private readonly prompts: ReadonlySet<string>;
  private readonly released = new Map<string, string>();
  /**
   * The tool calls (id → tool name) the model proposed through this guard in each response, and the latest response's
   * in each stored conversation, under the conversation the seals are bound to: what a call that continues one on the
   * provider's side (`previousResponseId`, `conversation`), whose prompt holds only the new messages, answers.
   */
  private readonly kept = new KeptCalls<string>();

  constructor(private readonly options: AiSdkModelInputGuardOptions) {
    // First: checks the destination and the routes before anything reads them.
    this.release = new ToolResultRelease(options);
    this.destinationName = options.destination.toString();
    this.seal = new ContentSeal(this.destinationName, options.sealKey);
    const prompts = options.systemPrompts ?? [];
    prompts.forEach(assertPlainPrompt);
    this.prompts = new Set(prompts);
  }

  /**
   * Releases structured context for this destination as a sealed user message for the generation's `messages`. The
   * message states its release request's source and trust (`providerOptions.verdict.label`), inside what the seal
   * covers (ADR 0210): a provenance tracker labels it so in any process that shares the `sealKey` — a support ticket
   * released as untrusted stays untrusted — and a label changed after the release breaks the seal. A trusted label
   * (or a `user` or `agent` source) is bound to the principal of the action context it was released in, as the
   * module's labels are: it passes in that principal's generations only (released outside any action context, in
   * every generation).
   */
  async contextMessage(request: Omit<ReleaseRequest, 'destination'>): Promise<UserModelMessage> {
    const content = await releaseContext(this.options, request);
    const label = { source: ProvenanceSource.of(request.source), trust: request.trust };
    const stated = releaseLabelText(label);
    const principal = vouchesForPrincipal(label) ? (this.options.provenanceLabels?.currentPrincipal() ?? null) : null;
    const { seal } = this.sealed(contextView(content, stated, principal))[SEAL_NAMESPACE]!;
    return {
      role: 'user',
      content: [{ type: 'text', text: content }],
      providerOptions: { [SEAL_NAMESPACE]: { seal: seal!, label: stated } },
    };
  }

  /**
   * The application's own system prompt, sealed, for a prompt built per run: pass it as `generateText({ instructions })`.
   * @throws VerdictConfigurationError when `text` holds structured data.
   */
  systemPrompt(text: string): SystemModelMessage {
    assertPlainPrompt(text);
    return { role: 'system', content: text, providerOptions: this.sealed(['system', text]) };
  }

  /** The language-model middleware. */
  middleware(): LanguageModelMiddleware {
    return {
      specificationVersion: 'v4',
      transformParams: async ({ params }) => {
        if (!this.admitsCallOptions(params.providerOptions))
          throw new UnreleasedContextError('The call’s provider options', this.destinationName, CALL_OPTIONS_REMEDY);
        const conversation = this.conversation();
        const pending = this.kept.pending(conversation, providerOptionsConversation(params.providerOptions));
        const prompt = await this.admit(params.prompt as AiSdkPrompt, conversation, pending);
        return { ...params, prompt: prompt as typeof params.prompt };
      },
      wrapGenerate: async ({ doGenerate, params }) => {
        const conversation = this.conversation();
        const continued = providerOptionsConversation(params.providerOptions);
        const result = await doGenerate();
        this.keep(continued, conversation, result.response?.id, result.content);
        return { ...result, content: result.content.map((part) => this.sealAnswerPart(part, conversation)) };
      },
      wrapStream: async ({ doStream, params }) => {
        const conversation = this.conversation();
        const continued = providerOptionsConversation(params.providerOptions);
        const { stream, ...rest } = await doStream();
        const parts = new Map<string, StreamedPart>();
        const calls: StreamPart[] = [];
        let responseId: string | undefined;
        const sealed = stream.pipeThrough(
          new TransformStream<StreamPart, StreamPart>({
            transform: (part, controller) => {
              if (part.type === 'tool-call') calls.push(part);
              else if (part.type === 'response-metadata') responseId = part.id ?? responseId;
              controller.enqueue(this.sealStreamPart(part, parts, conversation));
            },
            flush: () => this.keep(continued, conversation, responseId, calls),
          }),
        );
        return { ...rest, stream: sealed };
      },
    };
  }

  /**
   * Keeps the tool calls the model proposed in a response (not those the provider ran itself) under its id and the
   * stored conversations the call is part of, for the conversation the seals are bound to: the provider holds them,
   * and a call that continues it sends only their results. The model proposed them — the response came through this
   * guard — so their results may answer them there, once per call, under their tools' names; in a stored
   * conversation, only the calls of its latest response ({@link KeptCalls}).
   */
  private keep(
    continued: ProviderConversation,
    conversation: string | null,
    responseId: string | undefined,
    content: readonly { readonly type: string }[],
  ): void {
    const calls = new Map<string, string>();
    for (const part of content) {
      const call = part as { type: string; toolCallId?: unknown; toolName?: unknown; providerExecuted?: unknown };
      if (call.type === 'tool-call' && call.providerExecuted !== true && typeof call.toolCallId === 'string')
        calls.set(call.toolCallId, String(call.toolName));
    }
    this.kept.keep(conversation, continued, responseId, calls);
  }

  /** The prompt with every tool result released. @throws UnreleasedContextError for the first message that may not go. */
  private async admit(
    prompt: AiSdkPrompt,
    conversation: string | null,
    pending: Map<string, PendingCall<string>>,
  ): Promise<AiSdkPrompt> {
    // Each sealed tool call of the prompt by id — and of the response or stored conversation the call continues, as this
    // guard saw the model propose them (`pending`, on entry) — with its tool's name, and whether a result answered it.
    const admitted: AiSdkMessage[] = [];
    for (const [index, message] of prompt.entries()) {
      const what = `Message ${index} (${message.role})`;
      switch (message.role) {
        case 'system':
          if (!this.admitsSystem(message.content, message.providerOptions))
            throw new UnreleasedContextError(what, this.destinationName, SYSTEM_REMEDY);
          break;
        case 'user':
          if (!this.admitsUser(message)) throw new UnreleasedContextError(what, this.destinationName);
          this.rememberReleaseLabel(message);
          break;
        case 'assistant':
          if (!this.admitsAnswer(message, conversation))
            throw new UnreleasedContextError(what, this.destinationName, ANSWER_REMEDY);
          for (const part of message.content)
            if (part.type === 'tool-call') pending.set(part.toolCallId, { name: part.toolName, answered: false });
          break;
        case 'tool': {
          const content = [];
          for (const part of message.content) {
            if (part.type !== 'tool-result') {
              // An approval's answer (which a provider sends back, its id as the request's): no structured or hidden data in it.
              // Its id and reason are checked for form only: plain prose there is not bound to the approval request.
              if (!approvalCarriesNoData(part))
                throw new UnreleasedContextError(what, this.destinationName, APPROVAL_REMEDY);
              content.push(part);
              continue;
            }
            // The result of a sealed call not answered yet, under that call's name: a result renamed after another
            // tool would be released through that tool's route.
            const call = pending.get(part.toolCallId);
            if (call === undefined || call.answered || call.name !== part.toolName)
              throw new UnreleasedContextError(what, this.destinationName, TOOL_REMEDY);
            call.answered = true;
            // Only what the route released goes: provider options a provider would send beside it are dropped.
            const { type, toolCallId, toolName } = part;
            content.push({ type, toolCallId, toolName, output: await this.releasedOutput(part) });
          }
          admitted.push({ role: 'tool', content });
          continue;
        }
      }
      admitted.push(message);
    }
    return admitted;
  }

  private admitsSystem(content: string, providerOptions: unknown): boolean {
    if (this.verify(['system', content], providerOptions)) return othersCarryNoData(providerOptions);
    return (/^\p{White_Space}*$/u.test(content) || this.prompts.has(content)) && optionsCarryNoData(providerOptions);
  }

  /**
   * A call's own provider options, which a provider sends beside the prompt (ADR 0132): any provider's `instructions`
   * is a system prompt (OpenAI's Responses model sends it as the request's instructions) and passes as a system
   * message does — empty, registered, or sealed by the call's own `verdict` options; every other option must hold
   * no data, as a message's options.
   */
  private admitsCallOptions(options: unknown): boolean {
    if (options === undefined || options === null) return true;
    if (typeof options !== 'object') return false;
    const instructions = Object.values(options)
      .map((entry) => (entry as { instructions?: unknown } | null)?.instructions)
      .filter((text) => text !== undefined && text !== null);
    if (instructions.length === 0) return optionsCarryNoData(options);
    return instructions.every((text) => typeof text === 'string' && this.admitsSystem(text, options));
  }

  private admitsUser(message: Extract<AiSdkMessage, { role: 'user' }>): boolean {
    if (message.content.some((part) => part.type !== 'text')) return false;
    const texts = message.content.map((part) => (part as { text: string }).text);
    const partsCarryNoData = message.content.every((part) => optionsCarryNoData(part.providerOptions));
    if (this.releasedContext(texts.join(''), message.providerOptions) !== undefined)
      return othersCarryNoData(message.providerOptions) && partsCarryNoData;
    return admitsUserText(texts) && optionsCarryNoData(message.providerOptions) && partsCarryNoData;
  }

  /**
   * Whether `text` is context this guard released, by its seal: with the label the message states, when the seal
   * covers that label (and, for a label that vouches, the current principal or none: {@link contextMessage});
   * `label: undefined` for a seal of a release before ADR 0210, which covers the text alone — released, but as
   * nothing a tracker may vouch for. `undefined` when no seal holds.
   */
  private releasedContext(text: string, options: unknown): { readonly label: ReleaseLabel | undefined } | undefined {
    const stated = (options as ProviderOptions | undefined)?.[SEAL_NAMESPACE]?.label;
    if (stated === undefined) return this.verify(['user', text], options) ? { label: undefined } : undefined;
    const label = parseReleaseLabel(stated);
    if (label === undefined) return undefined;
    const principals = new Set<string | null>([null]);
    if (vouchesForPrincipal(label)) principals.add(this.options.provenanceLabels?.currentPrincipal() ?? null);
    for (const principal of principals)
      if (this.verify(contextView(text, stated, principal), options)) return { label };
    return undefined;
  }

  /**
   * The label a released context message's seal vouches for goes to the module's labels, for the current principal,
   * so that the provenance tracker labels it by its release in this generation's window — in another process that
   * shares the `sealKey`, or in this one once its memory forgot the release. A message whose seal vouches for no
   * label (one sealed before ADR 0210) is given none: the tracker reads it as untrusted history.
   */
  private rememberReleaseLabel(message: Extract<AiSdkMessage, { role: 'user' }>): void {
    const labels = this.options.provenanceLabels;
    if (labels === undefined || message.providerOptions?.[SEAL_NAMESPACE] === undefined) return;
    const text = message.content.map((part) => (part as { text: string }).text).join('');
    const label = this.releasedContext(text, message.providerOptions)?.label;
    if (label !== undefined) labels.remember(text, [labelContent(text, label.source, label.trust)]);
  }

  /** An assistant message: every part sealed by this guard, or — with `acceptUnsealedHistory: 'prose'` — plain prose. */
  private admitsAnswer(message: Extract<AiSdkMessage, { role: 'assistant' }>, conversation: string | null): boolean {
    const sealed = message.content.every((part) => {
      const view = answerView(part, conversation, part.providerOptions);
      return view !== undefined && this.verify(view, part.providerOptions);
    });
    // The seal covers the parts: options on the message itself (a provider may send them, as a name) are not sealed.
    if (sealed) return optionsCarryNoData(message.providerOptions);
    if (this.options.acceptUnsealedHistory !== 'prose') return false;
    if (message.content.some((part) => part.type !== 'text')) return false;
    return isPlainProse([partsText(message.content)]) && optionsCarryNoData(message.providerOptions);
  }

  /** What the model reads of a tool result: released once per tool call and result. */
  private async releasedOutput(part: {
    toolCallId: string;
    toolName: string;
    output: Parameters<typeof toolResultText>[0];
  }) {
    if (part.output.type === 'execution-denied') return { type: 'execution-denied' as const };
    const text = toolResultText(part.output);
    const key = fingerprint([part.toolName, part.toolCallId, fingerprintString(text)]);
    let value = this.released.get(key);
    if (value === undefined) {
      value = await this.release.release(text, part.toolName, undefined);
      rememberBounded(this.released, key, value, REMEMBERED_RELEASES);
    }
    return { type: 'text' as const, value };
  }

  private sealAnswerPart<P extends GenerateResult['content'][number]>(part: P, conversation: string | null): P {
    const view = answerView(part, conversation, part.providerMetadata);
    if (view === undefined) return part;
    return { ...part, providerMetadata: { ...part.providerMetadata, ...this.sealed(view) } };
  }

  /**
   * A streamed part, with the seal on each completed text, reasoning and tool call. The AI SDK gives a text or
   * reasoning the provider metadata of its end part, so the end part carries what its start and deltas carried (a
   * thinking signature, an item id) beside the seal.
   */
  private sealStreamPart(part: StreamPart, parts: Map<string, StreamedPart>, conversation: string | null): StreamPart {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start':
      case 'text-delta':
      case 'reasoning-delta': {
        const key = `${part.type.startsWith('text') ? 'text' : 'reasoning'}:${part.id}`;
        const streamed = parts.get(key) ?? { text: '', metadata: {} };
        const delta = part.type.endsWith('delta') ? (part as { delta: string }).delta : '';
        parts.set(key, { text: streamed.text + delta, metadata: { ...streamed.metadata, ...part.providerMetadata } });
        return part;
      }
      case 'text-end':
      case 'reasoning-end': {
        const type = part.type === 'text-end' ? 'text' : 'reasoning';
        const streamed = parts.get(`${type}:${part.id}`) ?? { text: '', metadata: {} };
        parts.delete(`${type}:${part.id}`);
        const metadata = { ...streamed.metadata, ...part.providerMetadata };
        const view = answerView({ type, text: streamed.text }, conversation, metadata);
        return { ...part, providerMetadata: view === undefined ? metadata : { ...metadata, ...this.sealed(view) } };
      }
      case 'tool-call':
      case 'tool-result':
        return this.sealAnswerPart(part, conversation);
      default:
        return part;
    }
  }

  private sealed(view: unknown): ProviderOptions {
    return { [SEAL_NAMESPACE]: { seal: this.seal.seal(JSON.stringify(view)) } };
  }

  private verify(view: unknown, providerOptions: unknown): boolean {
    const seal = (providerOptions as ProviderOptions | undefined)?.[SEAL_NAMESPACE]?.seal;
    return this.seal.verify(JSON.stringify(view), seal);
  }

  private conversation(): string | null {
    return this.options.conversation?.() ?? null;
  }
}

/**
 * What the seal of a released context message covers (ADR 0210): its text, the label it states, and — for a label
 * that vouches — the principal it was released for (`null`: released outside any action context, or for an untrusted
 * label). Never the view of another message's seal (`['user', text]`, before ADR 0210).
 */
function contextView(text: string, label: string, principal: string | null): unknown[] {
  return ['user', 'released-context', text, label, principal];
}

/**
 * What a seal of a model answer's part covers: its kind, the conversation, its text or — for a tool call — its id,
 * tool and arguments (canonical JSON, whether the SDK holds them as text or parsed; a call the provider ran itself
 * marked so), or — for the result of a tool the provider ran — its call's id, tool and value ({@link resultView}),
 * and the provider's own metadata of the part (an encrypted reasoning, a thinking signature, an item id: it goes back
 * to the provider with the part). `undefined` for a part the guard never seals (files, sources, custom parts).
 */
function answerView(
  part: { type: string; text?: unknown },
  conversation: string | null,
  providerMetadata: unknown,
): unknown[] | undefined {
  const view = partView(part, conversation);
  if (view === undefined) return undefined;
  const metadata = providerMetadataOf(providerMetadata);
  if (metadata === null) return undefined;
  // A part without provider metadata keeps the seal it had before metadata was covered.
  return metadata === undefined ? view : [...view, metadata];
}

function partView(part: { type: string; text?: unknown }, conversation: string | null): unknown[] | undefined {
  if (part.type === 'text' || part.type === 'reasoning') return ['assistant', conversation, part.type, part.text];
  if (part.type === 'tool-result') return resultView(part as unknown as ProviderToolResult, conversation);
  if (part.type !== 'tool-call') return undefined;
  const call = part as unknown as { toolCallId: string; toolName: string; input: unknown; providerExecuted?: boolean };
  const view = ['assistant', conversation, 'tool-call', call.toolCallId, call.toolName, canonicalInput(call.input)];
  // Its seal never passes for a call the application runs, nor the other way round.
  return call.providerExecuted === true ? [...view, 'provider-executed'] : view;
}

/**
 * The result of a tool the provider ran itself, as the response gives it (`result`) or as the SDK keeps it in the
 * assistant message of the next prompt (`output`).
 */
interface ProviderToolResult {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly result?: unknown;
  readonly output?: { readonly type: string; readonly value?: unknown };
}

/** The outputs the SDK makes of a provider's result (an error's too): its value as it is. */
const RESULT_OUTPUTS: ReadonlySet<string> = new Set(['text', 'json', 'error-text', 'error-json']);

/**
 * What the seal of a provider-run tool's result covers: its call's id, its tool and the canonical fingerprint of its
 * value as JSON keeps it — the response's `result`, or the value of the output the SDK made of it. The SDK makes that
 * output by a JSON round trip (`undefined` members dropped, a `Date` as its text: a provider's mapping, such as
 * `@ai-sdk/openai`'s web search `query: action.query ?? undefined`, leaves such members), and a stored history is
 * JSON: both sides are fingerprinted round-tripped, so the result is sealed as the next prompt carries it, and a value
 * changed in between is not. `undefined` (never sealed) for an output of another kind (a tool's own `toModelOutput`),
 * or a value JSON cannot keep (a cycle, a `bigint`).
 */
function resultView(part: ProviderToolResult, conversation: string | null): unknown[] | undefined {
  const { output } = part;
  if (output !== undefined && !RESULT_OUTPUTS.has(output.type)) return undefined;
  let value: string;
  try {
    value = fingerprint(asJson(output === undefined ? part.result : output.value));
  } catch {
    return undefined;
  }
  return ['assistant', conversation, 'tool-result', part.toolCallId, part.toolName, value];
}

/**
 * A value as the SDK carries a tool's output into the next prompt (its `toJSONValue`): through `JSON.stringify`, and
 * `null` for what has no JSON (`undefined`, which the SDK keeps as null). @throws TypeError for a cycle or a `bigint`.
 */
function asJson(value: unknown): unknown {
  const text = value === undefined ? undefined : JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as unknown);
}

/**
 * The canonical fingerprint of a part's provider metadata beside the guard's seal, as JSON keeps it (a stored
 * history drops `undefined` members): `undefined` when there is none, `null` when it is no JSON (such a part is
 * neither sealed nor admitted).
 */
function providerMetadataOf(metadata: unknown): string | null | undefined {
  if (metadata === undefined || metadata === null) return undefined;
  if (typeof metadata !== 'object') return null;
  const { [SEAL_NAMESPACE]: _seal, ...others } = metadata as ProviderOptions;
  if (Object.keys(others).length === 0) return undefined;
  try {
    return fingerprint(JSON.parse(JSON.stringify(others)));
  } catch {
    return null;
  }
}

/** A tool call's arguments as canonical JSON: the model's text parsed (`{}` when empty), or the SDK's parsed value. */
function canonicalInput(input: unknown): string | null {
  let value = input;
  if (typeof input === 'string') {
    if (input.trim() === '') value = {};
    else
      try {
        value = JSON.parse(input) as unknown;
      } catch {
        return null;
      }
  }
  try {
    return fingerprint(value);
  } catch {
    return null;
  }
}

/**
 * Provider options — a message's or a call's — hold nothing a provider could send as data (the guard's own seal
 * aside): each provider's options are scalars, plain text, or small records of control tokens (`controlsCarryNoData`).
 */
function optionsCarryNoData(options: unknown): boolean {
  if (options === undefined || options === null) return true;
  if (typeof options !== 'object') return false;
  return Object.entries(options as ProviderOptions).every(
    ([name, entry]) =>
      name !== SEAL_NAMESPACE &&
      typeof entry === 'object' &&
      entry !== null &&
      controlsCarryNoData(Object.values(entry)),
  );
}

/**
 * Whether a tool message's part other than a result is an approval response (`tool-approval-response`) whose fields
 * hold no data: its `approvalId`, `approved` and `reason` (a provider sends them: the OpenAI Responses converter the id
 * as `approval_request_id`), and any other, plain text or a scalar; its provider options as a message's. Anything
 * else — an object, an array, structured or hidden text, a part of another type — is refused.
 */
function approvalCarriesNoData(part: object): boolean {
  const { type, providerOptions, ...fields } = part as Record<string, unknown>;
  return (
    type === 'tool-approval-response' &&
    optionsCarryNoData(providerOptions) &&
    carriesNoData(Object.keys(fields)) &&
    carriesNoData(Object.values(fields))
  );
}

/** A text or reasoning being streamed: its text so far, and the provider metadata its parts carried. */
interface StreamedPart {
  readonly text: string;
  readonly metadata: NonNullable<Extract<StreamPart, { type: 'text-end' }>['providerMetadata']>;
}

/** {@link optionsCarryNoData} of every namespace but the guard's own seal. */
function othersCarryNoData(options: unknown): boolean {
  if (options === undefined || options === null) return true;
  if (typeof options !== 'object') return false;
  const { [SEAL_NAMESPACE]: _seal, ...others } = options as ProviderOptions;
  return optionsCarryNoData(others);
}

function assertPlainPrompt(text: unknown): void {
  if (typeof text !== 'string' || !isPlainText(text))
    throw new VerdictConfigurationError(
      'AiSdkModelInputGuard: a system prompt must be plain text, without structured data or invisible characters; release data with contextMessage.',
    );
}
