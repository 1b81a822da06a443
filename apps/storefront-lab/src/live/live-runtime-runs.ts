import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { ConflictException, Injectable } from '@nestjs/common';
import { GraphRecursionError } from '@langchain/langgraph';
import { Agent, MaxTurnsExceededError, Runner } from '@openai/agents';
import { ActionContextStore, readNotExecutedMessage } from '@verdict/nestjs';
import { VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { VerdictTools, applicationFaultMiddleware } from '@verdict/nestjs/langchain';
import { VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { type LiveProvider, LiveSuiteError, providerErrorClassOf } from '@verdict/evaluation/live';
import { StorefrontCapability, createLookupOrderTool } from '@verdict/storefront';
import { generateText, stepCountIs } from 'ai';
import { createAgent } from 'langchain';
import { DataSource } from 'typeorm';
import type { LabActor, LiveRuntimeCallView, LiveRuntimeRunView } from '../runs/lab-run.js';
import { labContext } from '../session/lab-actors.js';
import { LiveLabProvider } from './live-lab-provider.js';
import { LIVE_SYSTEM_PROMPT } from './live-lab.scenarios.js';
import { LiveRuntime } from './live-runtime.js';
import { PROVIDER_ERRORS } from './provider-error-descriptions.js';

/** The model turns a live runtime run may take (the scripted labs' and the proposal step's bound). */
const MAX_MODEL_TURNS = 3;
/** The tool the model is offered: the storefront's order lookup, bound to `orders.view` in each runtime. */
const LOOKUP_ORDER = 'lookup_order';

/** A call the model made and the tool's answer, before the view reads the decision off the answer. */
type Answered = { readonly tool: string; readonly arguments: Record<string, unknown>; readonly modelRead: string };
/** What a runtime's loop gave: the calls in order and the model's final text (`null`: its turns ran out first). */
type RuntimeOutcome = { readonly calls: readonly Answered[]; readonly answer: string | null };
/** Every turn went to tool calls: the runtime stopped the loop before the model answered. */
const OUT_OF_TURNS: RuntimeOutcome = { calls: [], answer: null };

/**
 * The live lab through an agent runtime: the customer's request for an order goes to the configured model inside
 * the chosen runtime's own loop (LangChain `createAgent`, Vercel AI SDK `generateText`, OpenAI Agents `Runner`),
 * whose `lookup_order` tool is Verdict's adapter for that runtime. Every call the model makes is decided by Verdict
 * there, and the model reads the executor's output or the public `not_executed` answer: the page shows each call,
 * its decision, what the model read and its answer.
 */
@Injectable()
export class LiveRuntimeRuns {
  constructor(
    private readonly live: LiveLabProvider,
    private readonly contexts: ActionContextStore,
    private readonly dataSource: DataSource,
    private readonly langChainTools: VerdictTools,
    private readonly aiSdkTools: VerdictAiSdkTools,
    private readonly agentsTools: VerdictAgentsTools,
  ) {}

  /**
   * The cross-customer scenario (the customer asks for an order, maybe another customer's) through `runtime`.
   * @throws ConflictException (409) without a provider, or when the provider cannot serve the runtime
   * @throws ApplicationFaultError when the application faulted (a 500: never a decision, never model text)
   */
  async runCrossCustomer({
    actor,
    request,
    runtime,
  }: {
    actor: LabActor;
    request: string;
    runtime: LiveRuntime;
  }): Promise<LiveRuntimeRunView> {
    const provider = this.live.require();
    const base = {
      scenario: 'cross-customer',
      runtime,
      provider: { kind: provider.kind, model: provider.model },
      calls: [],
      answer: '',
      errorClass: null,
    };
    let outcome: RuntimeOutcome;
    try {
      outcome = await this.contexts.run(labContext(actor), () => this.through(runtime, provider, request));
    } catch (thrown) {
      if (thrown instanceof LiveSuiteError) throw new ConflictException(thrown.message);
      const errorClass = providerErrorClassOf(thrown);
      if (errorClass === null) throw thrown;
      return {
        ...base,
        outcome: 'provider_error',
        errorClass,
        message: `Provider error (${errorClass}): ${PROVIDER_ERRORS[errorClass]}. This run is neither a pass nor a failure.`,
      };
    }
    const calls: LiveRuntimeCallView[] = outcome.calls.map((call) => ({
      ...call,
      decision: readNotExecutedMessage(call.modelRead)?.decision ?? 'executed',
    }));
    if (outcome.answer === null)
      return {
        ...base,
        outcome: 'no_answer',
        calls,
        message: `The model gave no answer within ${MAX_MODEL_TURNS} turns. The run says nothing about the gate.`,
      };
    return {
      ...base,
      outcome: 'answered',
      calls,
      answer: outcome.answer,
      message:
        calls.length === 0
          ? 'The model called no tool: Verdict decided nothing.'
          : `The model called ${calls.map((call) => call.tool).join(', ')} in ${runtime}; Verdict decided each call there.`,
    };
  }

  private through(runtime: LiveRuntime, provider: LiveProvider, request: string): Promise<RuntimeOutcome> {
    if (runtime === LiveRuntime.AiSdk) return this.aiSdk(provider, request);
    if (runtime === LiveRuntime.OpenAIAgents) return this.agents(provider, request);
    return this.langChain(provider, request);
  }

  private async langChain(provider: LiveProvider, request: string): Promise<RuntimeOutcome> {
    const agent = createAgent({
      model: await provider.createChatModel(),
      tools: [this.langChainTools.bound(createLookupOrderTool(this.dataSource), StorefrontCapability.ViewOrder)],
      systemPrompt: LIVE_SYSTEM_PROMPT,
      middleware: [applicationFaultMiddleware()],
    });
    let messages: BaseMessage[];
    try {
      // Each model turn but the last is followed by a tool turn.
      const state = await agent.invoke(
        { messages: [new HumanMessage(request)] },
        { recursionLimit: 2 * MAX_MODEL_TURNS - 1 },
      );
      messages = state.messages;
    } catch (thrown) {
      if (thrown instanceof GraphRecursionError) return OUT_OF_TURNS;
      throw thrown;
    }
    const answers = new Map(
      messages
        .filter((message) => ToolMessage.isInstance(message))
        .map((message) => [message.tool_call_id, String(message.content)]),
    );
    const calls = messages.flatMap((message) =>
      AIMessage.isInstance(message)
        ? (message.tool_calls ?? []).map((call) => ({
            tool: call.name,
            arguments: { ...call.args },
            modelRead: answers.get(call.id ?? '') ?? '',
          }))
        : [],
    );
    const last = messages.at(-1);
    return { calls, answer: last !== undefined && AIMessage.isInstance(last) ? last.text : '' };
  }

  private async aiSdk(provider: LiveProvider, request: string): Promise<RuntimeOutcome> {
    const { temperature, topP, maxOutputTokens, seed } = provider.sampling;
    const result = await generateText({
      model: await provider.createAiSdkModel(),
      system: LIVE_SYSTEM_PROMPT,
      prompt: request,
      tools: { [LOOKUP_ORDER]: this.aiSdkTools.bound(StorefrontCapability.ViewOrder, { name: LOOKUP_ORDER }) },
      stopWhen: stepCountIs(MAX_MODEL_TURNS),
      maxRetries: provider.maxRetries,
      timeout: provider.timeoutMs,
      ...(temperature === null ? {} : { temperature }),
      ...(topP === null ? {} : { topP }),
      ...(maxOutputTokens === null ? {} : { maxOutputTokens }),
      ...(seed === null ? {} : { seed }),
    });
    const calls = result.steps.flatMap((step) =>
      step.toolCalls.map((call) => ({
        tool: call.toolName,
        arguments: { ...(call.input as Record<string, unknown>) },
        modelRead: String(step.toolResults.find((done) => done.toolCallId === call.toolCallId)?.output ?? ''),
      })),
    );
    return { calls, answer: result.finishReason === 'tool-calls' ? null : result.text };
  }

  private async agents(provider: LiveProvider, request: string): Promise<RuntimeOutcome> {
    const { temperature, topP, maxOutputTokens } = provider.sampling;
    const agent = new Agent({
      name: 'Storefront support',
      instructions: LIVE_SYSTEM_PROMPT,
      model: await provider.createAgentsModel(),
      tools: [this.agentsTools.bound(StorefrontCapability.ViewOrder, { name: LOOKUP_ORDER })],
      modelSettings: {
        ...(temperature === null ? {} : { temperature }),
        ...(topP === null ? {} : { topP }),
        ...(maxOutputTokens === null ? {} : { maxTokens: maxOutputTokens }),
      },
    });
    const result = await new Runner({ tracingDisabled: true })
      .run(agent, request, { maxTurns: MAX_MODEL_TURNS })
      .catch((thrown: unknown) => {
        if (thrown instanceof MaxTurnsExceededError) return null;
        throw thrown;
      });
    if (result === null) return OUT_OF_TURNS;
    const outputs = new Map<string, string>();
    for (const item of result.newItems)
      if (item.type === 'tool_call_output_item') {
        const { callId } = item.rawItem as { callId: string };
        outputs.set(callId, String(item.output));
      }
    const calls = result.newItems.flatMap((item) => {
      if (item.type !== 'tool_call_item') return [];
      const raw = item.rawItem as { name: string; arguments: string; callId: string };
      return [{ tool: raw.name, arguments: parsedArguments(raw.arguments), modelRead: outputs.get(raw.callId) ?? '' }];
    });
    return { calls, answer: typeof result.finalOutput === 'string' ? result.finalOutput : '' };
  }
}

/** A function call's JSON arguments as an object (malformed arguments show as `{ raw }`: the pipeline refused them). */
function parsedArguments(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? { ...parsed } : { raw: text };
  } catch {
    return { raw: text };
  }
}
