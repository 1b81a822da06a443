import { describe, expect, it } from '@jest/globals';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { UnreleasedContextError, VerdictConfigurationError } from '@verdict/nestjs';
import { RECORD, guardedAgent, sealedLookupResult } from './guarded-agent.fixture.js';

const JSON_RECORD = JSON.stringify(RECORD);
const PROMPT = 'You are the storefront assistant. Answer briefly.';

/** A run with `messages` as the agent's input and a one-turn answer; `reached` says whether the model was called. */
async function attempt(guarded: ReturnType<typeof guardedAgent>, messages: Parameters<ReturnType<typeof guardedAgent>['run']>[1]) {
  const { model, outcome } = await guarded.run([{ text: 'Hello.' }], messages);
  return { outcome, reached: model.callCount > 0, shown: JSON.stringify(model.transcript) };
}

function expectRefused(result: Awaited<ReturnType<typeof attempt>>): void {
  expect(result.outcome).toBeInstanceOf(UnreleasedContextError);
  expect(result.reached).toBe(false);
}

describe('ModelInputGuard message inspection', () => {
  describe('content blocks and invisible characters', () => {
    it.each([
      ['a zero-width space', `\u200B${JSON_RECORD}`],
      ['a word joiner', `\u2060${JSON_RECORD}`],
      ['a byte-order mark and a zero-width space inside', `\uFEFF{\u200B"email": "${RECORD.email}"}`],
    ])('refuses a user message whose JSON hides behind %s', async (_case, content) => {
      expectRefused(await attempt(guardedAgent(), [new HumanMessage(content)]));
    });

    it('refuses JSON in a content block of its own after a prose block', async () => {
      const blocks = [
        { type: 'text' as const, text: 'Here is the customer:' },
        { type: 'text' as const, text: JSON_RECORD },
      ];
      expectRefused(await attempt(guardedAgent(), [new HumanMessage({ content: blocks })]));
    });

    it('refuses JSON split across text blocks', async () => {
      const blocks = [
        { type: 'text' as const, text: `{"email": "${RECORD.email}",` },
        { type: 'text' as const, text: ` "card": "${RECORD.card}"}` },
      ];
      expectRefused(await attempt(guardedAgent(), [new HumanMessage({ content: blocks })]));
    });

    it('lets user prose through, with braces, brackets, an invisible character or several blocks', async () => {
      const prose = [
        new HumanMessage('My order {1002} is late [again], can you check?'),
        new HumanMessage('Thanks\u200B for the help'),
        new HumanMessage({
          content: [
            { type: 'text', text: 'Two questions:' },
            { type: 'text', text: 'where is 1002?' },
          ],
        }),
      ];
      const result = await attempt(guardedAgent(), prose);
      expect(result.outcome).toBeNull();
      expect(result.reached).toBe(true);
    });
  });

  describe('model messages', () => {
    it('refuses a record after a short prose prefix in an answer the model did not give', async () => {
      expectRefused(await attempt(guardedAgent(), [new HumanMessage('hi'), new AIMessage(`Noted: ${JSON_RECORD}`), new HumanMessage('go on')]));
    });

    it.each([
      ['function_call', { function_call: { name: 'lookup_customer', arguments: JSON_RECORD } }],
      ['tool_calls', { tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'lookup_customer', arguments: JSON_RECORD } }] }],
    ])('refuses an unsealed model message carrying a record in additional_kwargs.%s', async (_case, kwargs) => {
      const smuggled = new AIMessage({ content: 'Sure.', additional_kwargs: kwargs });
      expectRefused(await attempt(guardedAgent(), [new HumanMessage('hi'), smuggled, new HumanMessage('go on')]));
    });

    it('refuses a sealed model answer once its additional_kwargs are changed', async () => {
      const guarded = guardedAgent();
      const { model } = await guarded.run([{ text: 'Hello there.' }]);
      const answer = model.turns[0].response!;
      const edited = new AIMessage({
        content: answer.content,
        additional_kwargs: { ...answer.additional_kwargs, function_call: { name: 'x', arguments: JSON_RECORD } },
      });
      expectRefused(await attempt(guarded, [new HumanMessage('hi'), edited, new HumanMessage('go on')]));
    });

    it('lets an earlier model answer in prose through, also with numbered citations', async () => {
      const result = await attempt(guardedAgent(), [new HumanMessage('hi'), new AIMessage('Your parcel left on Monday [1].'), new HumanMessage('thanks')]);
      expect(result.outcome).toBeNull();
    });
  });

  describe('seals are bound to role and tool call', () => {
    it('refuses a sealed tool result replayed as a system message', async () => {
      const guarded = guardedAgent();
      const sealed = await sealedLookupResult(guarded);
      const replayed = new SystemMessage({ content: sealed.content, additional_kwargs: sealed.additional_kwargs });
      expectRefused(await attempt(guarded, [replayed, new HumanMessage('Who am I?')]));
    });

    it('refuses a sealed tool result replayed as a user message', async () => {
      const guarded = guardedAgent();
      const sealed = await sealedLookupResult(guarded);
      expectRefused(await attempt(guarded, [new HumanMessage({ content: sealed.content, additional_kwargs: sealed.additional_kwargs })]));
    });

    it('refuses a sealed tool result replayed for an unknown tool-call id, or with no tool call asking for it', async () => {
      const guarded = guardedAgent();
      const sealed = await sealedLookupResult(guarded);
      const moved = new ToolMessage({ content: sealed.content, tool_call_id: 'call_other', name: sealed.name, additional_kwargs: sealed.additional_kwargs });
      expectRefused(await attempt(guarded, [new HumanMessage('hi'), moved]));
      expectRefused(await attempt(guarded, [new HumanMessage('hi'), sealed]));
    });

    it('refuses a tool result answered twice', async () => {
      const guarded = guardedAgent();
      const { outcome, model } = await guarded.run([
        { toolCalls: [{ name: 'lookup_customer', args: {}, id: 'call_lookup' }] },
        (messages) => {
          const sealed = messages.find((message) => message.type === 'tool') as ToolMessage;
          return { text: sealed === undefined ? 'no result' : 'Done.' };
        },
      ]);
      expect(outcome).toBeNull();
      const [human, call, result] = model.transcript[1] as [HumanMessage, AIMessage, ToolMessage];
      // A copy (the agent's state keeps one message per id): same content, same seal, same tool call.
      const copy = new ToolMessage({ ...result, id: undefined });
      const twice = await attempt(guarded, [human, call, result, copy]);
      expectRefused(twice);
      expect((twice.outcome as Error).message).toContain('must answer, once, a tool call');
      expect((await attempt(guarded, [human, call, copy])).outcome).toBeNull();
    });

    it('lets the whole guarded loop through: sealed answer with a tool call, its sealed result, a final answer', async () => {
      const guarded = guardedAgent();
      const { outcome, model } = await guarded.run([{ toolCalls: [{ name: 'lookup_customer', args: {}, id: 'call_lookup' }] }, { text: 'You are 72.' }]);
      expect(outcome).toBeNull();
      expect(model.callCount).toBe(2);
      // The checkpointed history, resumed through the same guard, still verifies.
      const resumed = await attempt(guarded, [...model.transcript[1], model.turns[1].response!, new HumanMessage('And my card?')]);
      expect(resumed.outcome).toBeNull();
    });
  });

  describe('system prompts', () => {
    it('refuses a system prompt the application did not register or seal', async () => {
      const result = await guardedAgent({ systemPrompt: PROMPT }).run([{ text: 'unreachable' }]);
      expect(result.outcome).toBeInstanceOf(UnreleasedContextError);
      expect(result.model.callCount).toBe(0);
    });

    it('refuses a record formatted into a system prompt after a prose prefix', async () => {
      const result = await guardedAgent({ systemPrompt: `Customer: ${JSON_RECORD}` }).run([{ text: 'unreachable' }]);
      expect(result.outcome).toBeInstanceOf(UnreleasedContextError);
    });

    it('lets a registered system prompt through, exactly as registered', async () => {
      const passed = await guardedAgent({ systemPrompt: PROMPT, systemPrompts: [PROMPT] }).run([{ text: 'Hello.' }]);
      expect(passed.outcome).toBeNull();
      const edited = await guardedAgent({ systemPrompt: `${PROMPT} Also: ${JSON_RECORD}`, systemPrompts: [PROMPT] }).run([{ text: 'unreachable' }]);
      expect(edited.outcome).toBeInstanceOf(UnreleasedContextError);
    });

    it('lets a prompt sealed with guard.systemPrompt() through, and refuses it once edited', async () => {
      const guarded = guardedAgent();
      const prompt = guarded.guard.systemPrompt(`${PROMPT} The customer's first name is Ada.`);
      expect((await attempt(guarded, [prompt, new HumanMessage('hi')])).outcome).toBeNull();
      const edited = new SystemMessage({ content: `${String(prompt.content)} ${JSON_RECORD}`, additional_kwargs: prompt.additional_kwargs });
      expectRefused(await attempt(guarded, [edited, new HumanMessage('hi')]));
    });

    it('refuses to register or seal a prompt that carries structured data: release it with contextMessage', () => {
      expect(() => guardedAgent({ systemPrompts: [`Customer: ${JSON_RECORD}`] })).toThrow(VerdictConfigurationError);
      expect(() => guardedAgent().guard.systemPrompt(`Customer: ${JSON_RECORD}`)).toThrow(VerdictConfigurationError);
    });
  });
});
