import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Command, MemorySaver } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent } from 'langchain';
import type { ActionContext } from '@verdict/nestjs';
import {
  ProvenanceTrackers,
  VerdictTools,
  applicationFaultMiddleware,
  approveToolCall,
} from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { CONTRACT_TOOLS, type ContractApp } from './contract-app.js';
import { LOOPBACK_KEY, LOOPBACK_MODEL, loopbackModel } from './loopback-models.js';
import type { ContractRun, Conversation, ModelSource, RuntimeDriver } from './runtime-driver.js';

/** LangChain's `ScriptedChatModel` answering the turns in order. */
export const scriptedLangChainModels: ModelSource<BaseChatModel> = async (turns) => {
  const model = new ScriptedChatModel(
    turns.map((turn) =>
      'text' in turn
        ? { text: turn.text }
        : { toolCalls: turn.toolCalls.map(({ name, input, id }) => ({ name, args: input, id })) },
    ),
  );
  return { model, inputs: () => model.transcript.map((messages) => JSON.stringify(messages)) };
};

/** `@langchain/openai` `ChatOpenAI` (chat completions, no retries) against the loopback server. */
export const loopbackLangChainModels: ModelSource<BaseChatModel> = (turns) =>
  loopbackModel(
    turns,
    (baseUrl) =>
      new ChatOpenAI({
        model: LOOPBACK_MODEL,
        apiKey: LOOPBACK_KEY,
        useResponsesApi: false,
        maxRetries: 0,
        configuration: { baseURL: baseUrl },
      }),
  );

/** The tool answers among `messages`. */
const toolAnswersIn = (messages: readonly BaseMessage[]) =>
  messages.filter((message) => ToolMessage.isInstance(message)).map((message) => String(message.content));

/**
 * LangChain `createAgent` with the contract's bound tools (`VerdictTools.bound`), the application-fault and
 * provenance-tracker middleware and a checkpointer. A pause is the bound tool's interrupt; a resumption forks the
 * thread from the interrupted checkpoint with `approveToolCall(id)` (or, for changed arguments, an edit decision:
 * the only way a LangChain client can change a paused call's arguments).
 */
export function langChainDriver(models: ModelSource<BaseChatModel>, label: string): RuntimeDriver {
  return {
    name: `LangChain createAgent (${label})`,
    observesProvenance: true,
    // No model-input guard in this driver: nothing seals the checkpointed history.
    sealsHistory: false,
    async conversation(app: ContractApp, turns): Promise<Conversation> {
      const verdictTools = app.moduleRef.get(VerdictTools, { strict: false });
      const trackers = app.moduleRef.get(ProvenanceTrackers, { strict: false });
      const tools = Object.entries(CONTRACT_TOOLS).map(([name, { capability, schema }]) =>
        verdictTools.bound(
          tool(async () => 'never', { name, description: name, schema }),
          capability,
        ),
      );
      const { model, inputs } = await models(turns);
      const agent = createAgent({
        model,
        tools,
        checkpointer: new MemorySaver(),
        middleware: [applicationFaultMiddleware(), trackers.forAgent().middleware()],
      });
      const thread = { configurable: { thread_id: `contract-${Math.random()}` } };
      type State = { messages: BaseMessage[]; __interrupt__?: { value: { toolCallId: string } }[] };

      const invoke = async (who: ActionContext, input: unknown, config: object, before: number) => {
        let state: State;
        try {
          state = (await app.contexts.run(who, () => agent.invoke(input as never, config))) as unknown as State;
        } catch (failure) {
          return { toolAnswers: [], failure, paused: null } satisfies ContractRun;
        }
        const toolAnswers = toolAnswersIn(state.messages).slice(before);
        const [pause] = state.__interrupt__ ?? [];
        if (pause === undefined) return { toolAnswers, failure: undefined, paused: null } satisfies ContractRun;
        const { toolCallId } = pause.value;
        const pausedCall = state.messages
          .flatMap((message) => (AIMessage.isInstance(message) ? (message.tool_calls ?? []) : []))
          .find((call) => call.id === toolCallId);
        const interrupted = (await agent.graph.getState(thread)).config;
        const answered = toolAnswersIn(state.messages).length;
        const run: ContractRun = {
          toolAnswers,
          failure: undefined,
          paused: {
            resume: (resumer, changedArguments) => {
              const decision =
                changedArguments === undefined
                  ? approveToolCall(toolCallId)
                  : { decisions: [{ type: 'edit', editedAction: { name: pausedCall?.name, args: changedArguments } }] };
              return invoke(resumer, new Command({ resume: decision }), interrupted, answered);
            },
          },
        };
        return run;
      };
      return {
        start: (who, message) => invoke(who, { messages: [new HumanMessage(message)] }, thread, 0),
        modelInputs: inputs,
      };
    },
  };
}
