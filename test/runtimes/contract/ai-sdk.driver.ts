import { createOpenAI } from '@ai-sdk/openai';
import { type LanguageModel, type ModelMessage, generateText, stepCountIs, wrapLanguageModel } from 'ai';
import type { ActionContext } from '@verdict/nestjs';
import { AiSdkModelInputGuards, AiSdkProvenanceTrackers, VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { scriptedLanguageModel } from '../../ai-sdk/scripted-language-model.js';
import { CONTRACT_DESTINATION, CONTRACT_ROUTES, CONTRACT_TOOLS, type ContractApp } from './contract-app.js';
import { LOOPBACK_KEY, LOOPBACK_MODEL, loopbackModel } from './loopback-models.js';
import type { ContractRun, Conversation, ModelSource, RuntimeDriver } from './runtime-driver.js';

/** A language model object (not a provider's model id string): what `wrapLanguageModel` wraps. */
type ModelObject = Exclude<LanguageModel, string>;

/** The AI SDK's `MockLanguageModelV4` answering the turns in order. */
export const scriptedAiSdkModels: ModelSource<ModelObject> = async (turns) => {
  const model = scriptedLanguageModel(
    turns.map((turn) => ('text' in turn ? turn : { toolCalls: turn.toolCalls.map((call) => ({ ...call })) })),
  );
  return { model, inputs: () => model.doGenerateCalls.map((call) => JSON.stringify(call.prompt)) };
};

/** The AI SDK OpenAI provider's chat-completions model (`@ai-sdk/openai`, `.chat(...)`) against the loopback server. */
export const loopbackAiSdkModels: ModelSource<ModelObject> = (turns) =>
  loopbackModel(turns, (baseURL) => createOpenAI({ baseURL, apiKey: LOOPBACK_KEY }).chat(LOOPBACK_MODEL));

/** `history` with the tool call `toolCallId` given `input` (what a client that writes the history can do). */
function withArguments(history: readonly ModelMessage[], toolCallId: string, input: unknown): ModelMessage[] {
  return history.map((message) =>
    message.role !== 'assistant' || typeof message.content === 'string'
      ? message
      : {
          ...message,
          content: message.content.map((part) =>
            part.type === 'tool-call' && part.toolCallId === toolCallId ? { ...part, input } : part,
          ),
        },
  );
}

/**
 * Vercel AI SDK `generateText` with the contract's tools (`VerdictAiSdkTools.bound`). A pause is a
 * `tool-approval-request`; a resumption sends the history back with an approving `tool-approval-response`, as a
 * browser client does (with changed arguments: the history's tool call edited).
 */
export function aiSdkDriver(models: ModelSource<ModelObject>, label: string): RuntimeDriver {
  return {
    name: `Vercel AI SDK generateText (${label})`,
    observesProvenance: true,
    // The guard seals every answer in provider metadata: an edited history fails the next step.
    sealsHistory: true,
    async conversation(app: ContractApp, turns): Promise<Conversation> {
      const aiTools = app.moduleRef.get(VerdictAiSdkTools, { strict: false });
      const tools = Object.fromEntries(
        Object.entries(CONTRACT_TOOLS).map(([name, { capability }]) => [name, aiTools.bound(capability, { name })]),
      );
      const { model: base, inputs } = await models(turns);
      const trackers = app.moduleRef.get(AiSdkProvenanceTrackers, { strict: false });
      const guards = app.moduleRef.get(AiSdkModelInputGuards, { strict: false });
      const guard = guards.forDestination(CONTRACT_DESTINATION, { toolResults: CONTRACT_ROUTES });
      const model = wrapLanguageModel({
        model: base,
        middleware: [trackers.forAgent().middleware(), guard.middleware()],
      });

      const invoke = async (who: ActionContext, messages: ModelMessage[]): Promise<ContractRun> => {
        // What the tools answered, as the SDK reports each execution (an approved call runs before the first step,
        // outside the result's steps).
        const toolAnswers: string[] = [];
        let result: Awaited<ReturnType<typeof generateText<typeof tools>>>;
        try {
          result = await app.contexts.run(who, () =>
            generateText({
              model,
              tools,
              messages,
              stopWhen: stepCountIs(5),
              maxRetries: 0,
              onToolExecutionEnd: ({ toolOutput }) => {
                if (toolOutput.type === 'tool-result') toolAnswers.push(String(toolOutput.output));
              },
            }),
          );
        } catch (failure) {
          return { toolAnswers, failure, paused: null };
        }
        const request = result.content.find((part) => part.type === 'tool-approval-request');
        if (request === undefined) return { toolAnswers, failure: undefined, paused: null };
        // Every step's messages (`response.messages` holds the last step's only): the history a client keeps.
        const history = [...messages, ...result.responseMessages];
        return {
          toolAnswers,
          failure: undefined,
          paused: {
            resume: (resumer, changedArguments) =>
              invoke(resumer, [
                ...(changedArguments === undefined
                  ? history
                  : withArguments(history, request.toolCall.toolCallId, changedArguments)),
                {
                  role: 'tool',
                  content: [{ type: 'tool-approval-response', approvalId: request.approvalId, approved: true }],
                },
              ]),
          },
        };
      };
      return { start: (who, message) => invoke(who, [{ role: 'user', content: message }]), modelInputs: inputs };
    },
  };
}
