import { Agent, type Model, OpenAIProvider, RunState, Runner } from '@openai/agents';
import type { ActionContext } from '@verdict/nestjs';
import { AgentsModelInputGuards, AgentsProvenanceTrackers, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { ScriptedAgentsModel } from '../../openai-agents/scripted-agents-model.js';
import { CONTRACT_DESTINATION, CONTRACT_ROUTES, CONTRACT_TOOLS, type ContractApp } from './contract-app.js';
import { LOOPBACK_KEY, LOOPBACK_MODEL, loopbackModel } from './loopback-models.js';
import type { ContractRun, Conversation, ModelSource, RuntimeDriver } from './runtime-driver.js';

/** A scripted Agents `Model` answering the turns in order. */
export const scriptedAgentsModels: ModelSource<Model> = async (turns) => {
  const model = new ScriptedAgentsModel(turns);
  return { model, inputs: () => model.requests.map((request) => JSON.stringify(request.input)) };
};

/** The Agents SDK's OpenAI chat-completions model (`OpenAIProvider`, `useResponses: false`) against the loopback server. */
export const loopbackAgentsModels: ModelSource<Model> = (turns) =>
  loopbackModel(turns, (baseURL) =>
    new OpenAIProvider({ baseURL, apiKey: LOOPBACK_KEY, useResponses: false }).getModel(LOOPBACK_MODEL),
  );

/** The agent's instructions (registered with the model-input guard). */
const INSTRUCTIONS = 'Help the customer with their documents.';

/** What the contract reads of a run's result. */
interface Ran {
  readonly newItems: readonly { readonly type: string }[];
  readonly interruptions?: readonly { readonly rawItem: unknown }[];
  readonly state: { toString(): string };
}

/** What the tools answered in a run. */
function toolAnswersIn(result: Ran): string[] {
  return result.newItems
    .filter((item) => item.type === 'tool_call_output_item')
    .map((item) => String((item as unknown as { output: unknown }).output));
}

/**
 * An OpenAI Agents `Runner` with the contract's function tools (`VerdictAgentsTools.bound`). A pause is a run
 * interruption whose state is kept as `RunState.toString()`; a resumption restores it in a fresh agent and runner
 * (as another process would), approves the interruption the SDK's way and runs it (with changed arguments: the
 * serialized state edited).
 */
export function agentsDriver(models: ModelSource<Model>, label: string): RuntimeDriver {
  return {
    name: `OpenAI Agents Runner (${label})`,
    observesProvenance: true,
    // The Agents guard cannot seal the model's items in a RunState (docs/runtimes/openai-agents.md).
    sealsHistory: false,
    async conversation(app: ContractApp, turns): Promise<Conversation> {
      const agentsTools = app.moduleRef.get(VerdictAgentsTools, { strict: false });
      const { model: base, inputs } = await models(turns);
      const guard = app.moduleRef
        .get(AgentsModelInputGuards, { strict: false })
        .forDestination(CONTRACT_DESTINATION, { toolResults: CONTRACT_ROUTES, systemPrompts: [INSTRUCTIONS] });
      const model = app.moduleRef.get(AgentsProvenanceTrackers, { strict: false }).forAgent().model(guard.model(base));
      /** A fresh agent, as a new process would build it. */
      const agent = () =>
        new Agent({
          name: 'Support',
          instructions: INSTRUCTIONS,
          model,
          tools: Object.entries(CONTRACT_TOOLS).map(([name, { capability }]) =>
            agentsTools.bound(capability, { name }),
          ),
        });

      const invoke = async (who: ActionContext, go: (runner: Runner) => Promise<Ran>) => {
        let result: Ran;
        try {
          result = await app.contexts.run(who, () => go(new Runner()));
        } catch (failure) {
          return { toolAnswers: [], failure, paused: null } satisfies ContractRun;
        }
        const toolAnswers = toolAnswersIn(result);
        const [interruption] = result.interruptions ?? [];
        if (interruption === undefined) return { toolAnswers, failure: undefined, paused: null } satisfies ContractRun;
        const serialized = result.state.toString();
        const { arguments: original } = interruption.rawItem as { arguments: string };
        /** The JSON-string form of a call's arguments inside the serialized state. */
        const inState = (args: string) => JSON.stringify(args).slice(1, -1);
        const run: ContractRun = {
          toolAnswers,
          failure: undefined,
          paused: {
            resume: (resumer, changedArguments) => {
              const stored =
                changedArguments === undefined
                  ? serialized
                  : serialized.split(inState(original)).join(inState(JSON.stringify(changedArguments)));
              return invoke(resumer, async (runner) => {
                const restored = agent();
                const state = await RunState.fromString(restored, stored);
                for (const paused of state.getInterruptions()) state.approve(paused);
                return runner.run(restored, state);
              });
            },
          },
        };
        return run;
      };
      return {
        start: (who, message) => invoke(who, (runner) => runner.run(agent(), message)),
        modelInputs: inputs,
      };
    },
  };
}
