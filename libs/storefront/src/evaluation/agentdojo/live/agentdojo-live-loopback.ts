import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { QuarantinePromptMessage } from '@verdict/nestjs';
import {
  byUserMessage,
  followingInjections,
  type ChatCompletionHandler,
  type ChatCompletionMessage,
  type ChatCompletionReply,
} from '@verdict/testing-kit';
import type { CorpusCall } from '../agentdojo-corpus.js';
import { quarantineReadingScript, ValueReadingQuarantinedModel } from '../quarantined-values.js';
import { workspaceSuite } from '../workspace/workspace-suite.js';
import { AGENTDOJO_LIVE_USER_TASK, liveEnvironment } from './agentdojo-live-pack.js';

/** The human message of an extraction (`quarantine.extract`'s prompt) starts so. */
const EXTRACTION = 'What to extract: ';
/** The id prefix of the ground-truth calls the scripted deciding model makes. */
const LEGITIMATE = 'legitimate-';
/** The id prefix of calls made because an injected instruction asked for them (`followingInjections`). */
const INJECTED = 'injected-';

/**
 * What the loopback chat-completions server plays for the AgentDojo live pack, both models of a trial: the
 * deciding model plays the packs' quarantine reading script (its ground-truth calls; fresh handles first read
 * through `quarantine_extract`) and obeys instruction lines it reads in raw tool results (the naive arm); the
 * quarantined model (a request whose user message is an extraction) answers as the packs' injection-following
 * `ValueReadingQuarantinedModel`. Stateless: every request replays the conversation it carries.
 */
export function agentDojoLoopbackModel(): ChatCompletionHandler {
  const suite = workspaceSuite();
  const task = suite.corpus.user_tasks.find((entry) => entry.id === AGENTDOJO_LIVE_USER_TASK)!;
  const calls = suite.groundTruth(task, liveEnvironment(suite, task)());
  const deciding = byUserMessage({
    [task.prompt]: followingInjections(decidingModel(calls, task.ground_truth_output)),
  });
  return (request, index) => {
    const human = request.messages.find((message) => message.role === 'user');
    if (human === undefined || !textOf(human.content).startsWith(EXTRACTION)) return deciding(request, index);
    const input = request.messages.map((message): QuarantinePromptMessage => [
      message.role === 'system' ? 'system' : 'human',
      textOf(message.content),
    ]);
    return { text: new ValueReadingQuarantinedModel(calls).answer(input) };
  };
}

/** The deciding model: the reading script, replayed over the conversation's own turns, then asked for the next. */
function decidingModel(calls: readonly CorpusCall[], answer: string | null): ChatCompletionHandler {
  return (request) => {
    const script = quarantineReadingScript(calls, answer, LEGITIMATE);
    const messages = request.messages.map(toMessage);
    messages.forEach((message, i) => {
      if (AIMessage.isInstance(message) && !(message.tool_calls ?? []).some((c) => c.id?.startsWith(INJECTED)))
        script.step(messages.slice(0, i), CONTEXT);
    });
    return toReply(script.step(messages, CONTEXT));
  };
}

/** The reading script reads only the messages. */
const CONTEXT = { turn: 0, boundTools: [] };
function toReply(turn: ReturnType<ReturnType<typeof quarantineReadingScript>['step']>): ChatCompletionReply {
  if ('toolCalls' in turn && turn.toolCalls !== undefined)
    return {
      toolCalls: turn.toolCalls.map((call) => ({ name: call.name, arguments: call.args ?? {}, id: call.id })),
    };
  return { text: (turn as { text?: string }).text ?? '' };
}

function toMessage(message: ChatCompletionMessage): BaseMessage {
  const content = textOf(message.content);
  if (message.role === 'system') return new SystemMessage(content);
  if (message.role === 'user') return new HumanMessage(content);
  if (message.role === 'tool') return new ToolMessage({ content, tool_call_id: message.tool_call_id ?? '' });
  return new AIMessage({
    content,
    tool_calls: (message.tool_calls ?? []).map((call) => ({
      id: call.id,
      name: call.function.name,
      args: JSON.parse(call.function.arguments) as Record<string, unknown>,
    })),
  });
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  return '';
}
