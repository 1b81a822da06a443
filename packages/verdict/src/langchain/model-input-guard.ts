import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import type { ContextReleaser } from '../context-release/context-releaser.js';
import type { Destination } from '../context-release/destination.js';
import type { PlaceholderVault } from '../context-release/detectors/index.js';
import type { ReleaseRequest } from '../context-release/release-request.js';
import { Decision } from '../decisions/decision.js';
import { Stage } from '../decisions/stage.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { NullEvidenceRecorder } from '../evidence/null-evidence-recorder.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { UnreleasedContextError } from '../errors/unreleased-context.error.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import { recordGuardDecision } from './guard-decision.js';
import { MessageAdmission } from './message-admission.js';
import { notExecutedMessage, readNotExecutedMessage } from './not-executed-message.js';
import { type PlaceholderRestoration, PlaceholderRestorations } from './placeholder-restoration.js';
import { ReleaseSeal } from './release-seal.js';
import { containsStructure } from './structured-text.js';

/** How one tool's results are released: everything of a release request but the payload and destination. */
export type ToolResultRoute = Omit<ReleaseRequest, 'payload' | 'destination'>;

/** Options of a {@link ModelInputGuard}. */
export interface ModelInputGuardOptions {
  readonly releaser: Pick<ContextReleaser, 'requireRelease'>;
  /** The one connection and trust zone this agent's model runs in. */
  readonly destination: Destination;
  /** The release route of each tool's results, by tool name. A tool without one cannot answer the model. */
  readonly toolResults: Readonly<Record<string, ToolResultRoute>>;
  /** Verdict's fixed public message: `not_executed` answers carrying it pass unreleased (they hold no data). */
  readonly publicMessage: string;
  /**
   * Whether a `not_executed` answer names a registered capability (`ModelInputGuards` asks the registry).
   * Without it no `not_executed` answer passes unreleased: route those tools too.
   */
  readonly isCapability?: (name: string) => boolean;
  /** The vault of the routes that scan with `tokenize`: its `<EMAIL_1>`-style placeholders restore where `restore` declares. */
  readonly vault?: PlaceholderVault;
  /**
   * Where vault placeholders in tool arguments restore to their real values, by tool name: argument paths,
   * whole values only unless declared `embedded`. A vault placeholder anywhere else refuses the call (a recorded
   * `deny`; the tool does not run, the model reads Verdict's `not_executed` answer). Default: none (needs `vault`).
   * @example restore: { send_note: ['to', { path: 'body', embedded: true }] }
   */
  readonly restore?: Readonly<Record<string, readonly PlaceholderRestoration[]>>;
  /** Where the guard's own decisions go (restorations and refusals of tool calls); `ModelInputGuards` passes the module's. Default: `NullEvidenceRecorder`. */
  readonly recorder?: EvidenceRecorder;
  /** The seal key, shared by processes that resume each other's runs; default random per guard. */
  readonly sealKey?: Uint8Array;
  /**
   * The application's own system prompts, as plain text: a system message passes unsealed only when it is
   * exactly one of these (or empty). A prompt holding structured data is refused at construction; for a prompt
   * built per run use {@link ModelInputGuard.systemPrompt}. Default: none.
   * @example systemPrompts: ['You are the storefront assistant. Answer briefly.']
   */
  readonly systemPrompts?: readonly string[];
}

/**
 * A model-input guard bound to one destination (DESIGN.md §9, ADR 0011): a langchain v1 agent
 * middleware through which structured context and tool results reach the model only as payloads
 * released for that destination.
 * - Every tool result is released through its tool's route before the model sees it (a tool returning a
 *   whole customer record shows the model only the route's projection); a tool without a route, or a
 *   denied release, rejects the run with a typed error (`UnreleasedContextError`, `ContextReleaseRefusedError`).
 * - Before every model call, every message must carry the guard's seal — bound to its role, tool-call id,
 *   content and kwargs — or pass the unsealed rules of {@link MessageAdmission}: user prose, a registered or
 *   empty system prompt, model prose from before the guard. A tool message must answer, once, a tool call
 *   the model made. Anything else rejects the run before the provider is called.
 * - Vault placeholders in tool arguments restore only where `restore` declares (ADR 0013).
 * Denials and redactions are announced by the releaser (`ContextReleaseDenied`, `SensitiveDataRedacted`).
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

  /** @throws VerdictConfigurationError for a malformed `restore` declaration, or one without a `vault`. */
  constructor(private readonly options: ModelInputGuardOptions) {
    this.destinationName = options.destination.toString();
    this.seal = new ReleaseSeal(this.destinationName, options.sealKey);
    this.restorations = new PlaceholderRestorations(options.restore ?? {});
    if (this.restorations.declared && options.vault === undefined)
      throw new VerdictConfigurationError('ModelInputGuard: `restore` declares placeholder restorations but no `vault` holds their values.');
    this.recorder = options.recorder ?? new NullEvidenceRecorder();
    const prompts = options.systemPrompts ?? [];
    prompts.forEach((prompt) => assertPlainPrompt(prompt));
    this.admission = new MessageAdmission(this.seal, new Set(prompts), this.destinationName);
  }

  /** Releases structured context for this destination and wraps it in a sealed message for the agent's input. */
  async contextMessage(request: Omit<ReleaseRequest, 'destination'>): Promise<HumanMessage> {
    const { json: content } = await this.options.releaser.requireRelease({ ...request, destination: this.options.destination });
    return this.seal.sealMessage(new HumanMessage({ content }));
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
        const args = await this.restorePlaceholders(request.toolCall);
        if (ToolMessage.isInstance(args)) return args;
        const result = await handler(args === undefined ? request : { ...request, toolCall: { ...request.toolCall, args } });
        // A Command can put any message in the state: nothing a tool returns reaches the model unreleased.
        if (!ToolMessage.isInstance(result)) throw new UnreleasedContextError(`A Command returned by tool "${called}"`, this.destinationName);
        // The route is the called tool's: a tool cannot pick another tool's (wider) route by naming its message.
        if (result.name !== undefined && result.name !== called)
          throw new UnreleasedContextError(`A message named "${result.name}" from tool "${called}"`, this.destinationName);
        return this.releaseToolResult(result, called);
      },
      wrapModelCall: async (request, handler) => {
        this.admission.assertAdmitted([request.systemMessage, ...request.messages]);
        const response = await handler(request);
        // The model's own answers are sealed, so that later calls can tell them from messages put in its mouth.
        return AIMessage.isInstance(response) ? this.seal.sealMessage(response) : response;
      },
    });
  }

  /**
   * The call's arguments with its vault placeholders restored where declared (`undefined`: nothing to restore),
   * or Verdict's `not_executed` answer when a placeholder sits anywhere else. Either is recorded first.
   */
  private async restorePlaceholders(call: { name: string; id?: string; args: unknown }): Promise<Record<string, unknown> | ToolMessage | undefined> {
    const { vault } = this.options;
    if (vault === undefined) return undefined;
    // Arguments are provider JSON; re-read as plain JSON so values from any realm restore alike.
    const args = JSON.parse(JSON.stringify(call.args ?? {})) as unknown;
    const outcome = this.restorations.apply(vault, call.name, args);
    if (outcome.kind === 'untouched') return undefined;
    if (outcome.kind === 'restored') {
      await recordGuardDecision(this.recorder, call, Decision.permit(Stage.Proposal, 'placeholders_restored'), outcome.args);
      return outcome.args as Record<string, unknown>;
    }
    const decision = Decision.deny(Stage.Proposal, outcome.reason);
    await recordGuardDecision(this.recorder, call, decision, args);
    const content = notExecutedMessage({ executed: false, capability: call.name, correlationId: '', decision }, this.options.publicMessage);
    return this.sealedToolMessage(content, call.id ?? '', call.name);
  }

  private async releaseToolResult(message: ToolMessage, name: string): Promise<ToolMessage> {
    const text = typeof message.content === 'string' ? message.content : null;
    let content: string;
    if (text !== null && this.isNotExecuted(text)) content = text;
    else {
      const route = Object.hasOwn(this.options.toolResults, name) ? this.options.toolResults[name] : undefined;
      if (route === undefined || text === null) throw new UnreleasedContextError(`The result of tool "${name}"`, this.destinationName);
      content = (await this.options.releaser.requireRelease({ ...route, payload: payloadOf(text), destination: this.options.destination })).json;
    }
    return this.sealedToolMessage(content, message.tool_call_id, name, message.status);
  }

  private sealedToolMessage(content: string, toolCallId: string, name: string, status?: ToolMessage['status']): ToolMessage {
    return this.seal.sealMessage(new ToolMessage({ content, tool_call_id: toolCallId, name, status }));
  }

  /** Verdict's own refusal: its exact shape, a registered capability and the fixed public message. */
  private isNotExecuted(text: string): boolean {
    const answer = readNotExecutedMessage(text);
    return answer !== null && answer.message === this.options.publicMessage && (this.options.isCapability?.(answer.capability) ?? false);
  }
}

/** A tool result as a release payload: its JSON object, or `{ result }` for any other JSON value or plain text. */
function payloadOf(text: string): Record<string, unknown> {
  const parsed = parseJson(text);
  return isPlainObject(parsed) ? (parsed as Record<string, unknown>) : { result: parsed === undefined ? text : parsed };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A prompt registered or sealed as the application's own is plain text: data goes through `contextMessage`. */
function assertPlainPrompt(text: unknown): void {
  if (typeof text !== 'string' || containsStructure(text))
    throw new VerdictConfigurationError('ModelInputGuard: a system prompt must be plain text without structured data; release data with contextMessage.');
}
