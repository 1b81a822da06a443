import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { OpenAIProvider as AiSdkOpenAIProvider } from '@ai-sdk/openai';
import type { Model as AgentsModel } from '@openai/agents';
import { fingerprintString } from '@verdict/nestjs';
import { LiveSuiteError } from './live-suite.error.js';

/** The provider families a live run can use, both through LangChain chat models. */
export const LiveProviderKind = {
  /** `@langchain/openai` `ChatOpenAI` (chat completions) against any OpenAI-compatible base URL: OpenAI, Ollama, vLLM, LM Studio. */
  OpenAICompatible: 'openai',
  /** `@langchain/anthropic` `ChatAnthropic`. */
  Anthropic: 'anthropic',
} as const;

export type LiveProviderKind = (typeof LiveProviderKind)[keyof typeof LiveProviderKind];

/** Sampling settings sent with every request and recorded in the report; `null` leaves the provider's default. */
export interface SamplingSettings {
  readonly temperature: number | null;
  readonly topP: number | null;
  readonly maxOutputTokens: number | null;
  readonly seed: number | null;
}

/** The redacted description of a provider configuration that a report holds: no key, no URL. */
export interface ReportedProvider {
  readonly provider: LiveProviderKind;
  readonly model: string;
  /** SHA-256 of the base URL, or `null` for the provider's default endpoint. */
  readonly baseUrlFingerprint: string | null;
  readonly sampling: SamplingSettings;
  readonly timeoutMs: number;
  readonly maxRetries: number;
}

/** The environment variables a live run is configured by (documented in the README). */
export const LIVE_ENV = {
  provider: 'VERDICT_LIVE_PROVIDER',
  model: 'VERDICT_LIVE_MODEL',
  baseUrl: 'VERDICT_LIVE_BASE_URL',
  apiKey: 'VERDICT_LIVE_API_KEY',
  temperature: 'VERDICT_LIVE_TEMPERATURE',
  topP: 'VERDICT_LIVE_TOP_P',
  maxOutputTokens: 'VERDICT_LIVE_MAX_OUTPUT_TOKENS',
  seed: 'VERDICT_LIVE_SEED',
  timeoutMs: 'VERDICT_LIVE_TIMEOUT_MS',
  maxRetries: 'VERDICT_LIVE_MAX_RETRIES',
} as const;

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;
/** Local endpoints need no key, but the OpenAI client insists on one. */
const NO_KEY = 'not-needed';

/**
 * An explicit provider configuration: which LangChain chat model, which model id, where, with which
 * sampling settings. The API key is held privately: it is never enumerable, never in `toJSON()`, never in
 * an error message, and {@link describe} (what reports hold) leaves it out.
 *
 * @example
 * const provider = LiveProvider.fromEnv(process.env); // refuses without VERDICT_LIVE_PROVIDER and VERDICT_LIVE_MODEL
 * const model = await provider.createChatModel();
 */
export class LiveProvider {
  readonly #apiKey: string;

  private constructor(
    readonly kind: LiveProviderKind,
    readonly model: string,
    readonly baseUrl: string | null,
    apiKey: string,
    readonly sampling: SamplingSettings,
    readonly timeoutMs: number,
    readonly maxRetries: number,
  ) {
    this.#apiKey = apiKey;
  }

  /**
   * Reads the configuration from environment variables ({@link LIVE_ENV}). A live run never starts on
   * defaults: the provider and the model must be named, and a hosted endpoint needs a key.
   * @throws LiveSuiteError naming the variable that is missing or malformed (never its value)
   */
  static fromEnv(env: Readonly<Record<string, string | undefined>>): LiveProvider {
    const read = (name: string) => {
      const value = env[name]?.trim();
      return value === undefined || value === '' ? null : value;
    };
    const kind = read(LIVE_ENV.provider);
    if (kind === null)
      throw new LiveSuiteError(
        `a live run needs an explicit provider: set ${LIVE_ENV.provider} (openai or anthropic) and ${LIVE_ENV.model}`,
      );
    if (kind !== LiveProviderKind.OpenAICompatible && kind !== LiveProviderKind.Anthropic)
      throw new LiveSuiteError(`${LIVE_ENV.provider} must be openai or anthropic`);
    const model = read(LIVE_ENV.model);
    if (model === null) throw new LiveSuiteError(`set ${LIVE_ENV.model} to the model id to run against`);
    if (model.length > 200) throw new LiveSuiteError(`${LIVE_ENV.model} must be at most 200 characters`);
    const baseUrl = read(LIVE_ENV.baseUrl);
    if (baseUrl !== null && !URL.canParse(baseUrl)) throw new LiveSuiteError(`${LIVE_ENV.baseUrl} must be a URL`);
    const apiKey = read(LIVE_ENV.apiKey);
    if (apiKey === null && baseUrl === null)
      throw new LiveSuiteError(
        `set ${LIVE_ENV.apiKey} (or ${LIVE_ENV.baseUrl} for a local endpoint that needs no key)`,
      );
    const number = (name: string, check: (value: number) => boolean, rule: string) => {
      const text = read(name);
      if (text === null) return null;
      const value = Number(text);
      if (!Number.isFinite(value) || !check(value)) throw new LiveSuiteError(`${name} must be ${rule}`);
      return value;
    };
    const integer = (value: number) => Number.isInteger(value) && value >= 0;
    const sampling: SamplingSettings = {
      temperature: number(LIVE_ENV.temperature, (v) => v >= 0 && v <= 2, 'a number from 0 to 2'),
      topP: number(LIVE_ENV.topP, (v) => v > 0 && v <= 1, 'a number in (0, 1]'),
      maxOutputTokens: number(LIVE_ENV.maxOutputTokens, (v) => integer(v) && v > 0, 'a positive integer'),
      seed: number(LIVE_ENV.seed, integer, 'a non-negative integer'),
    };
    if (kind === LiveProviderKind.Anthropic && sampling.seed !== null)
      throw new LiveSuiteError(`${LIVE_ENV.seed} is not supported by the Anthropic API: unset it`);
    return new LiveProvider(
      kind,
      model,
      baseUrl,
      apiKey ?? NO_KEY,
      sampling,
      number(LIVE_ENV.timeoutMs, (v) => integer(v) && v > 0, 'a positive integer (milliseconds)') ?? DEFAULT_TIMEOUT_MS,
      number(LIVE_ENV.maxRetries, integer, 'a non-negative integer') ?? DEFAULT_MAX_RETRIES,
    );
  }

  /** What a report records of this configuration: no key, and the base URL only as a fingerprint. */
  describe(): ReportedProvider {
    return {
      provider: this.kind,
      model: this.model,
      baseUrlFingerprint: this.baseUrl === null ? null : fingerprintString(this.baseUrl),
      sampling: this.sampling,
      timeoutMs: this.timeoutMs,
      maxRetries: this.maxRetries,
    };
  }

  /** The redacted description: `JSON.stringify(provider)` never shows the key. */
  toJSON(): ReportedProvider {
    return this.describe();
  }

  /**
   * A new LangChain chat model for one trial. The provider package is an optional peer, loaded here.
   * @throws LiveSuiteError when the provider package is not installed
   */
  async createChatModel(): Promise<BaseChatModel> {
    const { temperature, topP, maxOutputTokens, seed } = this.sampling;
    const optional = <T extends Record<string, number | null>>(entries: T) =>
      Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== null)) as {
        [K in keyof T]?: Exclude<T[K], null>;
      };
    if (this.kind === LiveProviderKind.Anthropic) {
      const { ChatAnthropic } = await importProvider<typeof import('@langchain/anthropic')>('@langchain/anthropic');
      return new ChatAnthropic({
        model: this.model,
        apiKey: this.#apiKey,
        ...(this.baseUrl === null ? {} : { anthropicApiUrl: this.baseUrl }),
        ...optional({ temperature, topP, maxTokens: maxOutputTokens }),
        maxRetries: this.maxRetries,
        clientOptions: { timeout: this.timeoutMs },
      });
    }
    const { ChatOpenAI } = await importProvider<typeof import('@langchain/openai')>('@langchain/openai');
    return new ChatOpenAI({
      model: this.model,
      apiKey: this.#apiKey,
      useResponsesApi: false,
      ...(this.baseUrl === null ? {} : { configuration: { baseURL: this.baseUrl } }),
      ...optional({ temperature, topP, maxTokens: maxOutputTokens }),
      ...(seed === null ? {} : { modelKwargs: { seed } }),
      timeout: this.timeoutMs,
      maxRetries: this.maxRetries,
    });
  }
  /**
   * A new Vercel AI SDK language model for one run: the `@ai-sdk/openai` provider's chat-completions model on this
   * endpoint. Sampling, timeout and retries are call settings in the AI SDK: pass {@link sampling},
   * {@link timeoutMs} and {@link maxRetries} to `generateText`. The provider package is an optional peer.
   * @throws LiveSuiteError for a provider that is not OpenAI-compatible, or when `@ai-sdk/openai` is not installed
   */
  async createAiSdkModel(): Promise<ReturnType<AiSdkOpenAIProvider['chat']>> {
    this.requireOpenAICompatible('the Vercel AI SDK');
    const { createOpenAI } = await importProvider<typeof import('@ai-sdk/openai')>('@ai-sdk/openai');
    return createOpenAI({ apiKey: this.#apiKey, ...(this.baseUrl === null ? {} : { baseURL: this.baseUrl }) }).chat(
      this.model,
    );
  }

  /**
   * A new OpenAI Agents model for one run: the SDK's OpenAI chat-completions model on this endpoint (the OpenAI
   * client's own timeout and retries). Sampling settings go in the agent's `modelSettings`. `@openai/agents` is
   * an optional peer.
   * @throws LiveSuiteError for a provider that is not OpenAI-compatible, or when `@openai/agents` is not installed
   */
  async createAgentsModel(): Promise<AgentsModel> {
    this.requireOpenAICompatible('OpenAI Agents');
    const { OpenAIProvider } = await importProvider<typeof import('@openai/agents')>('@openai/agents');
    const provider = new OpenAIProvider({
      apiKey: this.#apiKey,
      useResponses: false,
      ...(this.baseUrl === null ? {} : { baseURL: this.baseUrl }),
    });
    return provider.getModel(this.model);
  }

  private requireOpenAICompatible(runtime: string): void {
    if (this.kind !== LiveProviderKind.OpenAICompatible)
      throw new LiveSuiteError(
        `${runtime} runs need an OpenAI-compatible provider: set ${LIVE_ENV.provider}=openai (it is ${this.kind})`,
      );
  }
}

async function importProvider<T>(name: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch {
    throw new LiveSuiteError(`the provider package ${name} is not installed: npm install ${name}`);
  }
}
