import { afterEach } from '@jest/globals';
import {
  type ChatCompletionReply,
  type ChatCompletionsServer,
  scriptedConversation,
  startChatCompletionsServer,
} from '@verdict/testing-kit';
import type { ContractTurn, ScriptedModel } from './runtime-driver.js';

const servers: ChatCompletionsServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** The loopback server's reply for one contract turn. */
function replyOf(turn: ContractTurn): ChatCompletionReply {
  return 'text' in turn
    ? { text: turn.text }
    : { toolCalls: turn.toolCalls.map(({ name, input, id }) => ({ name, arguments: input, id })) };
}

/**
 * A scripted chat-completions server on 127.0.0.1 answering `turns` by position in the conversation (a resumed or
 * replayed conversation gets the turn after the history it sends), closed after the test; `client` makes the
 * runtime's real provider client for its base URL. What the client sent is the model's input.
 */
export async function loopbackModel<M>(
  turns: readonly ContractTurn[],
  client: (baseUrl: string) => M | Promise<M>,
): Promise<ScriptedModel<M>> {
  const server = await startChatCompletionsServer(scriptedConversation(turns.map(replyOf)));
  servers.push(server);
  return {
    model: await client(server.baseUrl),
    inputs: () => server.requests.map((request) => JSON.stringify(request.messages)),
  };
}

/** The API key the provider clients send to the loopback server (they insist on one). */
export const LOOPBACK_KEY = 'sk-loopback-contract';
/** The model id the provider clients ask the loopback server for. */
export const LOOPBACK_MODEL = 'scripted-contract-model';
