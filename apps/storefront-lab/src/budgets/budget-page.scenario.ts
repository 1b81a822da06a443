import { HumanMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Inject, Injectable } from '@nestjs/common';
import {
  ActionContextStore,
  ModelBudgetExceededError,
  ModelBudgetGate,
  type ModelBudgetStanding,
  VERDICT_MODULE_OPTIONS,
  type VerdictModuleOptions,
  spendBudgetStanding,
} from '@verdict/nestjs';
import { ModelBudgets, VerdictTools, estimateInputTokens } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { TypeOrmBudgetStore } from '@verdict/nestjs/typeorm';
import { definitionOnlyTool } from '@verdict/storefront';
import { createAgent } from 'langchain';
import { DataSource } from 'typeorm';
import { LabCalls } from '../runs/lab-calls.js';
import type { AssistantRunView, BudgetPageView, BudgetStandingView, LabActor } from '../runs/lab-run.js';
import { labContext } from '../session/lab-actors.js';
import { LabConversation } from '../session/lab-conversation.js';
import { labActorKey } from '../review-lane/lab-reviewers.js';
import {
  GOODWILL_BUDGET,
  GOODWILL_CREDIT,
  GoodwillCreditCapabilities,
  goodwillCreditArguments,
} from './goodwill-credit.capabilities.js';
import { LAB_ASSISTANT_MAX_TOKENS, LAB_ASSISTANT_MODEL, providerTokens } from './lab-model-budgets.js';

const GOODWILL_TOOL = {
  name: 'give_goodwill_credit',
  description: 'Give store credit on one of your orders as goodwill, in cents',
};
const SYSTEM_PROMPT = 'You are the storefront assistant. Answer briefly.';
const ANSWER = 'Orders ship within two working days; you can follow each one from your account page.';

const WHEN_EXCEEDED = {
  spend:
    'The call is refused before the capability runs: throttle at stage budget, recorded, SpendBudgetExceeded emitted; the model reads "not performed".',
  model:
    'The run stops before the model is called: ModelBudgetExceededError ends agent.invoke, ModelBudgetExceeded is emitted, nothing is spent.',
} as const;

/**
 * The budget page: the goodwill credit capability under its spend budget, and the lab assistant — a real
 * `createAgent` agent on a scripted model that reports usage — under the module's token and cost budgets. Both
 * read where the actor's budgets stand from the session's budget store.
 */
@Injectable()
export class BudgetPageScenario {
  private readonly goodwill: StructuredToolInterface;
  private readonly store: TypeOrmBudgetStore;

  constructor(
    dataSource: DataSource,
    tools: VerdictTools,
    private readonly credits: GoodwillCreditCapabilities,
    private readonly calls: LabCalls,
    private readonly conversation: LabConversation,
    private readonly contexts: ActionContextStore,
    private readonly modelBudgets: ModelBudgets,
    private readonly gate: ModelBudgetGate,
    @Inject(VERDICT_MODULE_OPTIONS) private readonly options: VerdictModuleOptions,
  ) {
    this.goodwill = tools.bound(definitionOnlyTool(GOODWILL_TOOL, goodwillCreditArguments), GOODWILL_CREDIT);
    this.store = new TypeOrmBudgetStore(dataSource);
  }

  /** Where the actor's budgets stand now. */
  async view(actor: LabActor): Promise<BudgetPageView> {
    return { actor, budgets: await this.standing(actor), credits: null, assistant: null };
  }

  /** `count` goodwill credits of `amountCents` on `orderId`, proposed one after another. */
  async grantCredit(actor: LabActor, orderId: number, amountCents: number, count: number): Promise<BudgetPageView> {
    const before = this.credits.credits.length;
    const calls = [];
    for (let n = 1; n <= count; n++) {
      const mark = this.credits.credits.length;
      calls.push(
        await this.calls.viaTool(
          this.goodwill,
          {
            tool: GOODWILL_TOOL.name,
            arguments: { orderId, amountCents },
            toolCallId: this.conversation.nextToolCallId('call_credit'),
            context: labContext(actor),
            untrustedInput: `"My parcel was late, can I get something back?" (${n} of ${count})`,
            observe: () =>
              this.credits.credits.length === mark ? 'no credit granted' : `granted ${cents(amountCents)} of credit`,
          },
          true,
        ),
      );
    }
    const granted = this.credits.credits.slice(before).reduce((sum, credit) => sum + credit.amountCents, 0);
    const summary = `${cents(granted)} of credit granted for ${count} proposal(s) of ${cents(amountCents)}`;
    return { actor, budgets: await this.standing(actor), credits: { actor, calls, summary }, assistant: null };
  }

  /** `count` runs of the lab assistant, each answering `question` once, under the model budgets. */
  async askAssistant(actor: LabActor, question: string, count: number): Promise<BudgetPageView> {
    const runs: AssistantRunView[] = [];
    for (let n = 0; n < count; n++) runs.push(await this.ask(actor, question));
    return { actor, budgets: await this.standing(actor), credits: null, assistant: runs };
  }

  private async ask(actor: LabActor, question: string): Promise<AssistantRunView> {
    let estimated = 0;
    const budget = this.modelBudgets.forAgent({
      estimateInputTokens: (input) => (estimated = estimateInputTokens(input)),
    });
    const usage = { input: providerTokens(SYSTEM_PROMPT + question) + 8, output: providerTokens(ANSWER) };
    const model = new ScriptedChatModel([{ text: ANSWER, usage }], {
      model: LAB_ASSISTANT_MODEL,
      maxTokens: LAB_ASSISTANT_MAX_TOKENS,
    });
    const agent = createAgent({ model, tools: [], systemPrompt: SYSTEM_PROMPT, middleware: [budget.middleware()] });
    const run = { question, modelCalls: 0, reservedTokens: 0 };
    try {
      const answer = await this.contexts.run(labContext(actor), () =>
        agent.invoke({ messages: [new HumanMessage(question)] }),
      );
      return {
        ...run,
        outcome: 'answered',
        answer: String(answer.messages.at(-1)?.content ?? ''),
        reservedTokens: estimated + LAB_ASSISTANT_MAX_TOKENS,
        usedTokens: usage.input + usage.output,
        modelCalls: model.callCount,
        stoppedBy: null,
      };
    } catch (error) {
      // LangChain wraps a middleware's error in its MiddlewareError: the typed error is its cause.
      const cause = (error as { cause?: unknown }).cause ?? error;
      if (!(cause instanceof ModelBudgetExceededError)) throw cause;
      return {
        ...run,
        outcome: 'stopped',
        answer: null,
        reservedTokens: estimated + LAB_ASSISTANT_MAX_TOKENS,
        usedTokens: null,
        modelCalls: model.callCount,
        stoppedBy: { code: cause.code, budget: cause.budget },
      };
    }
  }

  private async standing(actor: LabActor): Promise<BudgetStandingView[]> {
    const context = labContext(actor);
    const spend = await spendBudgetStanding(
      this.store,
      GOODWILL_CREDIT,
      GOODWILL_BUDGET,
      context,
      // The module's clock, as the budget gate and the model budgets' standing read it (the lab's `clock` option).
      (this.options.clock ?? (() => new Date()))(),
      labActorKey,
    );
    const models = await this.gate.standing(context);
    return [
      {
        name: GOODWILL_CREDIT,
        measure: 'spend',
        unit: 'cents',
        per: GOODWILL_BUDGET.per,
        limit: GOODWILL_BUDGET.limit,
        used: GOODWILL_BUDGET.limit - spend.remaining,
        remaining: spend.remaining,
        resetAt: spend.resetAt.toISOString(),
        whenExceeded: WHEN_EXCEEDED.spend,
      },
      ...models.map((standing) => modelStanding(standing)),
    ];
  }
}

function modelStanding({ name, measure, per, limit, remaining, resetAt }: ModelBudgetStanding): BudgetStandingView {
  return {
    name,
    measure,
    unit: measure === 'tokens' ? 'tokens' : 'millicents',
    per,
    limit,
    used: limit - remaining,
    remaining,
    resetAt: resetAt.toISOString(),
    whenExceeded: WHEN_EXCEEDED.model,
  };
}

function cents(amount: number): string {
  return `€${(amount / 100).toFixed(2)}`;
}
