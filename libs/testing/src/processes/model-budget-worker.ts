// A worker process of `startModelBudgetWorkers`: its own DataSource on the test database, Verdict's TypeORM budget
// store from the built package, and real `createAgent` agents whose scripted model reports usage, each model call
// counted by the model-budget middleware. Run as compiled JS (the pool refuses a build older than the sources).
import 'reflect-metadata';
import { HumanMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { DataSource } from 'typeorm';
import { ActionContextStore, ModelBudgetExceededError, ModelBudgetGate } from '@verdict/nestjs';
import { ModelCallBudget } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { TypeOrmBudgetStore, verdictEntities } from '@verdict/nestjs/typeorm';
import type { ModelBudgetRunReply, ModelBudgetRunRequest, ModelBudgetWorkerInit } from './model-budget-protocol.js';
import { serveParent } from './worker-runtime.js';

serveParent<ModelBudgetWorkerInit, ModelBudgetRunRequest, ModelBudgetRunReply>(async ({ dataSource: options }) => {
  const dataSource = await new DataSource({ ...options, entities: verdictEntities, migrations: [] }).initialize();
  const store = new TypeOrmBudgetStore(dataSource);
  const contexts = new ActionContextStore();

  const prepare = async ({ budgets, now, actor, runs, inputTokens, maxTokens, usage }: ModelBudgetRunRequest) => {
    const gate = new ModelBudgetGate({
      budgets: store,
      modelBudgets: { budgets },
      actorKey: (key) => String(key),
      clock: () => now,
    });
    const middleware = new ModelCallBudget(gate, contexts, { estimateInputTokens: () => inputTokens }).middleware();
    const agents = Array.from({ length: runs }, () =>
      createAgent({
        model: new ScriptedChatModel([{ text: 'Answered.', usage }], { model: 'scripted', maxTokens }),
        tools: [],
        middleware: [middleware],
      }),
    );
    // A round trip on the pool right before the barrier: the racing statements find a live, idle connection.
    await dataSource.query('SELECT 1');
    return async (): Promise<ModelBudgetRunReply> => {
      const outcomes: string[] = [];
      for (const agent of agents) {
        try {
          await contexts.run({ actor, tenant: 'acme' }, () => agent.invoke({ messages: [new HumanMessage('Hello')] }));
          outcomes.push('completed');
        } catch (error) {
          // LangChain wraps a middleware's error in its MiddlewareError: the typed error is its cause.
          const cause = (error as { cause?: unknown }).cause ?? error;
          outcomes.push(cause instanceof ModelBudgetExceededError ? 'stopped' : (cause as Error).name);
        }
      }
      return { outcomes };
    };
  };

  return {
    handle: async (request) => (await prepare(request))(),
    prepare,
    close: () => dataSource.destroy(),
  };
});
