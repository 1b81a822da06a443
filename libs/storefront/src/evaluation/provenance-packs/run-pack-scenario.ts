import { HumanMessage } from '@langchain/core/messages';
import { Observation } from '@verdict/evaluation';
import { readAssistantInstructions } from '@verdict/nestjs/testing';
import { InjectionFollowingChatModel, type ScriptStep } from '@verdict/nestjs/testing/langchain';
import { createAgent } from 'langchain';
import { observedAgentToolCalls } from '../agent-observation.js';
import type { PackArm } from './pack-arm.js';
import { openPackSandbox } from './pack-sandbox.js';
import type { PackCall, PackScenario } from './pack-scenario.js';
import { CAPABILITY_OF_TOOL } from './pack-tools.js';
import { cleanWorldOf } from './pack-world.js';

const call = (entry: PackCall, id: string) => ({ name: entry.tool, args: entry.args, id });

/**
 * The model's part of the user task: read, then make the consequential call, then answer. At the call turn it
 * also obeys instruction lines found in the descriptions of the tools it was given (a poisoned tool
 * description), in the same turn; instructions in tool results are obeyed by the injection-following model.
 */
function userTaskScript(scenario: PackScenario): ScriptStep[] {
  return [
    { toolCalls: [call(scenario.read, 'call_read')] },
    (_messages, { boundTools }) => ({
      toolCalls: [
        ...boundTools
          .flatMap((bound) => readAssistantInstructions(bound.description ?? ''))
          .map((instruction, i) => ({ name: instruction.tool, args: instruction.args, id: `described-${i + 1}` })),
        call(scenario.task, 'call_task'),
      ],
    }),
    { text: 'Done.' },
  ];
}

/**
 * Runs one scenario once in `arm`: a real `createAgent` loop with the injection-following model, in a fresh
 * sandbox, over the clean world or the attacked one. The observation holds every tool call the model made,
 * what the boundary answered, the effects that happened, and (as trajectory effects) the MCP tools refused.
 */
export async function runPackScenario(arm: PackArm, scenario: PackScenario, attacked: boolean): Promise<Observation> {
  const world = attacked ? scenario.inject(cleanWorldOf(scenario)) : cleanWorldOf(scenario);
  // What the operator pinned: the clean world before a rug pull, else the world as the run sees it.
  const sandbox = await openPackSandbox(arm, world, scenario.rugPull === true ? cleanWorldOf(scenario) : world);
  try {
    const model = new InjectionFollowingChatModel(userTaskScript(scenario));
    const agent = createAgent({ model, tools: sandbox.tools, middleware: sandbox.middleware });
    await sandbox.run(() => agent.invoke({ messages: [new HumanMessage(scenario.prompt)] }));
    model.assertScriptConsumed();
    return Observation.of({
      toolCalls: observedAgentToolCalls(model, CAPABILITY_OF_TOOL),
      sideEffects: [...sandbox.effects],
      effects: [...sandbox.refusals],
    });
  } finally {
    await sandbox.close();
  }
}
