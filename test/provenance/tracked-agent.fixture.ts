import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createAgent } from 'langchain';
import type { z } from 'zod';
import { type ActionContext, ActionContextStore, VerdictModule } from '@verdict/nestjs';
import { ProvenanceTrackers, VerdictLangChainModule, VerdictTools } from '@verdict/nestjs/langchain';
import { ScriptedChatModel, type ScriptStep } from '@verdict/nestjs/testing/langchain';

/**
 * One instance of an application with Verdict (`options`) and the LangChain integration: `bind` makes a bound
 * tool, `turn` runs one real createAgent loop with the provenance tracker, in a thread of its own, as `context`.
 */
export async function trackedAgentApp(options: Parameters<typeof VerdictModule.forRoot>[0]) {
  @Injectable()
  class AgentTools {
    constructor(
      readonly tools: VerdictTools,
      readonly trackers: ProvenanceTrackers,
    ) {}
  }
  @Module({ imports: [VerdictLangChainModule], providers: [AgentTools] })
  class AgentModule {}
  const moduleRef = await Test.createTestingModule({
    imports: [VerdictModule.forRoot(options), AgentModule],
  }).compile();
  await moduleRef.init();
  const { tools, trackers } = moduleRef.get(AgentTools);
  const contexts = moduleRef.get(ActionContextStore);
  const bind = (name: string, capability: string, schema: z.ZodObject) =>
    tools.bound(
      tool(async () => 'never', { name, description: name, schema }),
      capability,
    );

  async function turn(context: ActionContext, question: string, script: ScriptStep[], boundTools: unknown[]) {
    const model = new ScriptedChatModel(script);
    const agent = createAgent({
      model,
      tools: boundTools as ReturnType<typeof bind>[],
      checkpointer: new MemorySaver(),
      middleware: [trackers.forAgent().middleware()],
    });
    const config = { configurable: { thread_id: `thread-${Math.random()}` } };
    await contexts.run(context, () => agent.invoke({ messages: [new HumanMessage(question)] }, config));
    return model;
  }
  return { moduleRef, bind, turn, close: () => moduleRef.close() };
}
