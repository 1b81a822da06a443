import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent, toolStrategy } from 'langchain';
import { ContextReleaser, InMemoryEvidenceRecorder } from '@verdict/nestjs';
import { ModelInputGuard, applicationFaultMiddleware } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '../../libs/testing/src/scripted-chat-model.js';
import { LOCAL, PUBLIC_MESSAGE } from './guarded-agent.fixture.js';

/** The answer's JSON schema; its title names the structured-output tool the model calls. */
const ANSWER = {
  title: 'Answer',
  type: 'object' as const,
  properties: { text: { type: 'string' } },
  required: ['text'],
};

/** An agent with a structured response format, a checkpointer and the guard; each turn's answer is scripted. */
function structuredAgent(answers: string[]) {
  const guard = new ModelInputGuard({
    releaser: new ContextReleaser({ policies: [], recorder: new InMemoryEvidenceRecorder() }),
    destination: LOCAL,
    toolResults: {},
    publicMessage: PUBLIC_MESSAGE,
  });
  const model = new ScriptedChatModel(
    answers.map((text, index) => ({ toolCalls: [{ name: 'Answer', args: { text }, id: `call_answer_${index}` }] })),
  );
  const agent = createAgent({
    model,
    tools: [],
    responseFormat: toolStrategy(ANSWER),
    checkpointer: new MemorySaver(),
    middleware: [applicationFaultMiddleware(), guard.middleware()],
  });
  const turn = (text: string) =>
    agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: 'thread-1' } });
  return { turn, model };
}

describe('ModelInputGuard with a structured response format (responseFormat)', () => {
  it("seals the model's structured answer, so the next turn of the thread reaches the model", async () => {
    const { turn, model } = structuredAgent(['Hello', 'Still here']);
    expect((await turn('Hi')).structuredResponse).toEqual({ text: 'Hello' });
    expect((await turn('And now?')).structuredResponse).toEqual({ text: 'Still here' });
    expect(model.callCount).toBe(2);
  });
});
