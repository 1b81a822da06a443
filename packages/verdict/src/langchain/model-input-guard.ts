import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import type { PlaceholderVault } from '../context-release/detectors/index.js';
import type { ReleaseRequest } from '../context-release/release-request.js';
import { Decision } from '../decisions/decision.js';
import { Stage } from '../decisions/stage.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { NullEvidenceRecorder } from '../evidence/null-evidence-recorder.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { UnreleasedContextError } from '../errors/unreleased-context.error.js';
import { recordGuardDecision } from './guard-decision.js';
import { recordedCapability } from '../evidence/recorded-capability.js';
import { MessageAdmission, type UnsealedHistory } from './message-admission.js';
import { notExecutedMessage } from './not-executed-message.js';
import { type PlaceholderRestoration, PlaceholderRestorations } from './placeholder-restoration.js';
import { ReleaseSeal } from './release-seal.js';
import { noteRelease } from './model-input-guard-release.js';
import { isCanonicalJson } from '../fingerprints/canonical-json.js';
import { releaseContext } from '../runtimes/released-context.js';
import {
  ToolResultRelease,
  type ToolResultReleaseOptions,
  type ToolResultRoute,
} from '../runtimes/tool-result-release.js';
import { isPlainText } from '../runtimes/structured-text.js';
import { VerdictTool } from './verdict-tool.js';
import { threadOf } from './thread-of.js';
import { labelContent } from '../provenance/labelled-content.js';
import type { ProvenanceLabels } from '../provenance/provenance-labels.js';
import { ProvenanceSource } from '../provenance/provenance-source.js';
import { statedLabelOf, withSealedLabel } from './sealed-label.js';
import { isStructuredAnswer } from './structured-answer.js';

export type { ToolResultRoute };

/** Options of a {@link ModelInputGuard}. */
export interface ModelInputGuardOptions extends ToolResultReleaseOptions {
  /** The vault of the routes that scan with `tokenize`: its `<EMAIL_1>`-style placeholders restore where `restore` declares. */
  readonly vault?: PlaceholderVault;
  /**
   * Where vault placeholders in tool arguments restore to their real values, by tool name: argument paths,
   * whole values only unless declared `embedded`, of the declared `labels` only when given. A vault placeholder
   * anywhere else refuses the call (a recorded `deny`; the tool does not run, the model reads Verdict's
   * `not_executed` answer). Default: none (needs `vault`). Restoration does not check the call's other arguments:
   * the capability must check the recipient (see {@link PlaceholderRestoration}).
   * @example restore: { send_note: [{ path: 'to', labels: ['EMAIL'] }] }
   */
  readonly restore?: Readonly<Record<string, readonly PlaceholderRestoration[]>>;
  /** Where the guard's own decisions go (restorations and refusals of tool calls); `ModelInputGuards` passes the module's. Default: `NullEvidenceRecorder`. */
  readonly recorder?: EvidenceRecorder;
  /**
   * The seal key, shared by processes that resume each other's runs: at least 32 bytes (`randomBytes(32)`; anything
   * else is a `VerdictConfigurationError` when the guard is built); default random per guard. Seals of model
   * answers and tool results are bound to the run's LangGraph `thread_id` (none when the run has no thread): a
   * sealed pair from one thread does not verify in another, on this guard or any guard sharing the key. Seals of
   * `contextMessage` and `systemPrompt`, made before a run, are bound to no thread.
   */
  readonly sealKey?: Uint8Array;
  /**
   * The application's own system prompts, as plain text: a system message passes unsealed only when it is
   * exactly one of these (or empty). A prompt holding structured data is refused at construction; for a prompt
   * built per run use {@link ModelInputGuard.systemPrompt}. Default: none.
   * @example systemPrompts: ['You are the storefront assistant. Answer briefly.']
   */
  readonly systemPrompts?: readonly string[];
  /**
   * Unsealed model answers in the input — history from before the guard, or sealed with another key: `'none'`
   * (default) refuses them, since the guard seals every answer the model gives; `'prose'` lets plain prose
   * through (text only, no tool calls, no invisible encodings, no structured data; ADR 0013).
   */
  readonly acceptUnsealedHistory?: UnsealedHistory;
  /**
   * Where the labels of released context go, so that a provenance tracker labels a `contextMessage` by its
   * release request's source and trust rather than as the user's message; `ModelInputGuards` passes the
   * module's. Default: none.
   */
  readonly provenanceLabels?: ProvenanceLabels;
}

/**
 * A model-input guard bound to one destination (docs/context-release.md, ADR 0011): a langchain v1 agent
 * middleware through which structured context and tool results reach the model only as payloads
 * released for that destination.
 * - Every tool result is released through its tool's route before the model sees it (a tool returning a
 *   whole customer record shows the model only the route's projection); a tool without a route, or a
 *   denied release, rejects the run with a typed error (`UnreleasedContextError`, `ContextReleaseRefusedError`).
 * - A tool's `not_executed` answer passes unreleased only as Verdict's own — the fixed public message, a
 *   registered capability, the called tool's own when it is bound or guarded — and is re-serialized by
 *   `publicAnswer`: the tool's text never reaches the model as it is.
 * - Before every model call, every message must carry the guard's seal — bound to its role, tool-call id,
 *   content and kwargs, and for model answers and tool results the run's `thread_id` — or pass the unsealed
 *   rules of {@link MessageAdmission}: user prose, a registered or empty system prompt, and (only with
 *   `acceptUnsealedHistory: 'prose'`) model prose from before the guard. A tool message must answer, once, a
 *   tool call of the latest model message that issued its id. Anything else rejects the run before the
 *   provider is called.
 * - Vault placeholders in tool arguments restore only where `restore` declares: tool, argument path and, when
 *   given, labels (ADR 0013). The recipient of a restored value is the capability's to check.
 * - A call of a tool the agent does not have is answered with Verdict's sealed `not_executed` message (a recorded
 *   `deny`, reason `unknown_tool`, the name as its fingerprint), so the model may call one that exists; langchain's
 *   own error answer, which lists the agent's tools, never reaches it.
 * Denials and redactions are announced by the releaser (`ContextReleaseDenied`, `SensitiveDataRedacted`).
 *
 * List it after the provenance tracker, which labels each release by what the tool returned, and before a model call
 * budget: `[tracker, guard, budget]`. With quarantined reading, whose handles it must release, before the reading:
 * `[plan, guard, reading, tracker, budget]`.
 *
 * @example
 * const guard = guards.forDestination(Destination.connection('ollama', 'local-machine'), { toolResults: { lookup_customer: customerRoute } });
 * const agent = createAgent({ model, tools, middleware: [applicationFaultMiddleware(), guard.middleware()] });
 * await agent.invoke({ messages: [await guard.contextMessage(profileRequest), new HumanMessage(question)] });
 */
export class ModelInputGuard {
  private readonly seal: ReleaseSeal;
  private readonly destinationName: string;
  private readonly restorations: PlaceholderRestorations;
  private readonly recorder: EvidenceRecorder;
  private readonly admission: MessageAdmission;
  private readonly release: ToolResultRelease;

  /**
   * @throws VerdictConfigurationError for a `destination` that is not a `Destination`, a malformed `toolResults`
   *   route (naming the tool), a `sealKey` that is not a Uint8Array of at least 32 bytes, a malformed `restore`
   *   declaration, or one without a `vault`.
   */
  constructor(private readonly options: ModelInputGuardOptions) {
    // First: checks the destination and the routes before anything reads them.
    this.release = new ToolResultRelease(options);
    this.destinationName = options.destination.toString();
    this.seal = new ReleaseSeal(this.destinationName, options.sealKey);
    this.restorations = new PlaceholderRestorations(options.restore ?? {});
    if (this.restorations.declared && options.vault === undefined)
      throw new VerdictConfigurationError(
        'ModelInputGuard: `restore` declares placeholder restorations but no `vault` holds their values.',
      );
    this.recorder = options.recorder ?? new NullEvidenceRecorder();
    const prompts = options.systemPrompts ?? [];
    prompts.forEach((prompt) => assertPlainPrompt(prompt));
    this.admission = new MessageAdmission(
      this.seal,
      new Set(prompts),
      this.destinationName,
      options.acceptUnsealedHistory ?? 'none',
    );
  }

  /** Releases structured context for this destination and wraps it in a sealed message for the agent's input. */
  async contextMessage(request: Omit<ReleaseRequest, 'destination'>): Promise<HumanMessage> {
    const content = await releaseContext(this.options, request);
    const source = ProvenanceSource.of(request.source);
    // The label travels inside the seal: another process, or this one once its label memory forgot the text,
    // reads the ticket as what it was released as (ADR 0041).
    return this.seal.sealMessage(withSealedLabel(new HumanMessage({ content }), { source, trust: request.trust }));
  }

  /**
   * The application's own system prompt as a sealed `SystemMessage`, for a prompt built per run (a name, a
   * locale); pass it as `createAgent({ systemPrompt })`. Data belongs in {@link contextMessage}.
   *
   * @throws VerdictConfigurationError when `text` holds structured data (a JSON object or array).
   * @example createAgent({ model, tools, systemPrompt: guard.systemPrompt(`You help ${firstName}.`), middleware: [guard.middleware()] })
   */
  systemPrompt(text: string): SystemMessage {
    assertPlainPrompt(text);
    return this.seal.sealMessage(new SystemMessage(text));
  }

  /** The agent middleware. */
  middleware() {
    return createMiddleware({
      name: 'VerdictModelInputGuard',
      wrapToolCall: async (request, handler) => {
        const called = request.toolCall.name;
        const thread = threadOf(request.runtime);
        // A tool the agent declared is the application's; a call of no tool names what the model wrote.
        const args = await this.restorePlaceholders(request.toolCall, thread, request.tool !== undefined);
        if (ToolMessage.isInstance(args)) return args;
        const result = await handler(
          args === undefined ? request : { ...request, toolCall: { ...request.toolCall, args } },
        );
        // A call of no tool the agent has gets langchain's error answer, which lists the agent's tools: the model
        // reads Verdict's refusal instead, and may call a tool that exists.
        if (request.tool === undefined && ToolMessage.isInstance(result) && isInvalidToolAnswer(result, called))
          return this.refuse(
            request.toolCall,
            Decision.deny(Stage.Proposal, 'unknown_tool'),
            request.toolCall.args,
            thread,
            false,
          );
        // A Command can put any message in the state: nothing a tool returns reaches the model unreleased.
        if (!ToolMessage.isInstance(result))
          throw new UnreleasedContextError(`A Command returned by tool "${called}"`, this.destinationName);
        // The route is the called tool's: a tool cannot pick another tool's (wider) route by naming its message.
        if (result.name !== undefined && result.name !== called)
          throw new UnreleasedContextError(
            `A message named "${result.name}" from tool "${called}"`,
            this.destinationName,
          );
        // Sealed under the id of the call that ran, whatever id the tool's own message names.
        return this.releaseToolResult(result, called, request.toolCall.id ?? '', boundCapability(request.tool), thread);
      },
      wrapModelCall: async (request, handler) => {
        const thread = threadOf(request.runtime);
        this.admission.assertAdmitted([request.systemMessage, ...request.messages], thread);
        this.rememberSealedLabels(request.messages);
        const response = await handler(request);
        // The model's own answers are sealed, so that later calls can tell them from messages put in its mouth.
        return this.sealAnswer(response, thread);
      },
    });
  }

  /**
   * The labels released context messages carry under a valid seal go to the module's labels, where the
   * provenance tracker reads them for this model call's window.
   */
  private rememberSealedLabels(messages: readonly BaseMessage[]): void {
    const labels = this.options.provenanceLabels;
    if (labels === undefined) return;
    for (const message of messages) {
      const label = HumanMessage.isInstance(message) ? statedLabelOf(message) : undefined;
      if (label === undefined || typeof message.content !== 'string' || !this.seal.verifyMessage(message)) continue;
      labels.remember(message.content, [labelContent(message.content, label.source, label.trust)]);
    }
  }

  /**
   * Seals what the model answered: its message, or — with a structured response format — the messages of the
   * structured answer (the model's message and the tool message langchain derives from the model's own output).
   */
  private sealAnswer<T>(response: T, thread: string | undefined): T {
    if (AIMessage.isInstance(response)) return this.seal.sealMessage(response, thread) as T;
    if (isStructuredAnswer(response))
      for (const message of response.messages)
        if (AIMessage.isInstance(message) || ToolMessage.isInstance(message)) this.seal.sealMessage(message, thread);
    return response;
  }

  /**
   * The call's arguments with its vault placeholders restored where declared (`undefined`: nothing to restore),
   * or Verdict's `not_executed` answer when a placeholder sits anywhere else. Either is recorded first.
   */
  private async restorePlaceholders(
    call: { name: string; id?: string; args: unknown },
    thread: string | undefined,
    agentTool: boolean,
  ): Promise<Record<string, unknown> | ToolMessage | undefined> {
    const { vault } = this.options;
    if (vault === undefined) return undefined;
    // Arguments are provider JSON; re-read as plain JSON so values from any realm restore alike.
    const args = JSON.parse(JSON.stringify(call.args ?? {})) as unknown;
    const outcome = this.restorations.apply(vault, call.name, args);
    if (outcome.kind === 'untouched') return undefined;
    // Restored arguments that are not plain JSON (a lone surrogate, a key `__proto__`) are refused, never run.
    if (outcome.kind === 'restored' && !isCanonicalJson(outcome.args))
      return this.refuse(call, Decision.deny(Stage.Proposal, 'invalid_arguments'), args, thread, agentTool);
    if (outcome.kind === 'restored') {
      await recordGuardDecision(
        this.recorder,
        this.recordedCall(call, agentTool),
        Decision.permit(Stage.Proposal, 'placeholders_restored'),
        outcome.args,
      );
      return outcome.args as Record<string, unknown>;
    }
    return this.refuse(call, Decision.deny(Stage.Proposal, outcome.reason), args, thread, agentTool);
  }

  /** Records the guard's refusal of a tool call, and answers the model with Verdict's sealed `not_executed` message. */
  private async refuse(
    call: { name: string; id?: string },
    decision: Decision,
    args: unknown,
    thread: string | undefined,
    agentTool: boolean,
  ): Promise<ToolMessage> {
    await recordGuardDecision(this.recorder, this.recordedCall(call, agentTool), decision, args);
    const content = notExecutedMessage(
      { executed: false, capability: call.name, correlationId: '', decision },
      this.options.publicMessage,
    );
    return noteRelease(this.sealedToolMessage(content, call.id ?? '', call.name, thread));
  }

  /** The call as evidence names it: a tool the agent or the guard was told about by name, any other by its name's fingerprint. */
  private recordedCall(call: { name: string; id?: string }, agentTool: boolean) {
    const declared =
      agentTool ||
      Object.hasOwn(this.options.toolResults ?? {}, call.name) ||
      Object.hasOwn(this.options.restore ?? {}, call.name);
    return { id: call.id, name: recordedCapability(call.name, declared) };
  }

  /**
   * The tool's result released through its route, or Verdict's `not_executed` answer re-serialized: the text
   * the tool returned never reaches the model as it is (duplicate keys, escapes and padding would survive).
   */
  private async releaseToolResult(
    message: ToolMessage,
    name: string,
    toolCallId: string,
    capability: string | undefined,
    thread: string | undefined,
  ): Promise<ToolMessage> {
    const text = typeof message.content === 'string' ? message.content : null;
    const content = await this.release.release(text, name, capability);
    // A provenance tracker around the guard labels the release by what the tool returned: the route's projection
    // or its `{ result }` wrapping may have dropped what the result's declared labels are placed by.
    return noteRelease(this.sealedToolMessage(content, toolCallId, name, thread, message.status), message);
  }

  private sealedToolMessage(
    content: string,
    toolCallId: string,
    name: string,
    thread: string | undefined,
    status?: ToolMessage['status'],
  ): ToolMessage {
    return this.seal.sealMessage(new ToolMessage({ content, tool_call_id: toolCallId, name, status }), thread);
  }
}

/**
 * Whether `result` is langchain's own answer to a call of a tool the agent does not have (`Error: <name> is not a valid
 * tool, try one of [...]`), not the error of a tool a middleware supplied for that name, which is released as any
 * result is.
 */
function isInvalidToolAnswer(result: ToolMessage, name: string): boolean {
  return (
    result.status === 'error' &&
    typeof result.content === 'string' &&
    result.content.startsWith(`Error: ${name} is not a valid tool, try one of [`)
  );
}

/** The capability a bound or guarded tool runs (`undefined` for any other tool). */
function boundCapability(tool: unknown): string | undefined {
  return tool instanceof VerdictTool ? tool.capability : undefined;
}

/** A prompt registered or sealed as the application's own is plain text: data goes through `contextMessage`. */
function assertPlainPrompt(text: unknown): void {
  if (typeof text !== 'string' || !isPlainText(text))
    throw new VerdictConfigurationError(
      'ModelInputGuard: a system prompt must be plain text, without structured data or invisible characters; release data with contextMessage.',
    );
}
