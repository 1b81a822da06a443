import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message of an OpenAI chat-completions request, as the client sent it. */
export interface ChatCompletionMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: readonly { id: string; function: { name: string; arguments: string } }[];
  readonly tool_call_id?: string;
}

/** A chat-completions request body as the server received it. */
export interface ChatCompletionRequest {
  readonly model: string;
  readonly messages: readonly ChatCompletionMessage[];
  readonly tools?: readonly { function: { name: string } }[];
  readonly [setting: string]: unknown;
}

/** A tool call the scripted server returns. `arguments` as a string is sent verbatim (e.g. malformed JSON). */
export interface ServerToolCall {
  readonly name: string;
  readonly arguments: Record<string, unknown> | string;
  readonly id?: string;
}

/** Token usage to report; the default is 10 prompt and 5 completion tokens per reply. */
export interface ServerUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/**
 * What the server answers to one request: a text answer, tool calls, an HTTP error status (500, 429, …),
 * or `hang` — it never answers, so the client's timeout fires.
 */
export type ChatCompletionReply =
  | { readonly text: string; readonly usage?: ServerUsage }
  | { readonly toolCalls: readonly ServerToolCall[]; readonly text?: string; readonly usage?: ServerUsage }
  | { readonly status: number; readonly error?: string }
  | { readonly hang: true };

/** Decides the reply to a request; `index` counts requests from 0 across the server's life. */
export type ChatCompletionHandler = (request: ChatCompletionRequest, index: number) => ChatCompletionReply;

/** A running server: its OpenAI-compatible base URL (ends in `/v1`), what it received, and `close()`. */
export interface ChatCompletionsServer {
  readonly baseUrl: string;
  readonly requests: readonly ChatCompletionRequest[];
  close(): Promise<void>;
}

/**
 * Starts a small OpenAI-compatible chat-completions server on loopback (port 0), scripted by `handler`,
 * so a test runs the real provider client — HTTP, tool-call parsing, retries, timeouts — without a model.
 * `POST /v1/chat/completions` only (no streaming); anything else is a 404.
 *
 * @example
 * const server = await startChatCompletionsServer(() => ({ text: 'hello' }));
 * const model = new ChatOpenAI({ model: 'scripted', apiKey: 'test', configuration: { baseURL: server.baseUrl } });
 * await server.close();
 */
export async function startChatCompletionsServer(handler: ChatCompletionHandler): Promise<ChatCompletionsServer> {
  const requests: ChatCompletionRequest[] = [];
  const server = createServer((request, response) => {
    void answer(request, response);
  });
  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions')
      return send(response, 404, { error: 'not found' });
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatCompletionRequest;
    const index = requests.push(body) - 1;
    let reply: ChatCompletionReply;
    try {
      reply = handler(body, index);
    } catch (error) {
      return send(response, 500, { error: { message: `handler threw: ${(error as Error).message}` } });
    }
    if ('hang' in reply) return; // never answered: the socket is destroyed on close()
    if ('status' in reply)
      return send(response, reply.status, {
        error: { message: reply.error ?? `scripted ${reply.status}`, type: 'scripted' },
      });
    send(response, 200, completion(body.model, index, reply));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function completion(
  model: string,
  index: number,
  reply: Exclude<ChatCompletionReply, { status: number } | { hang: true }>,
): unknown {
  const toolCalls = 'toolCalls' in reply ? reply.toolCalls : [];
  const usage = reply.usage ?? { promptTokens: 10, completionTokens: 5 };
  return {
    id: `chatcmpl-${index}`,
    object: 'chat.completion',
    created: 0,
    model,
    choices: [
      {
        index: 0,
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        message: {
          role: 'assistant',
          content: reply.text ?? (toolCalls.length > 0 ? null : ''),
          ...(toolCalls.length > 0
            ? {
                tool_calls: toolCalls.map((call, position) => ({
                  id: call.id ?? `call_${index}_${position}`,
                  type: 'function',
                  function: {
                    name: call.name,
                    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
                  },
                })),
              }
            : {}),
        },
      },
    ],
    usage: {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.promptTokens + usage.completionTokens,
    },
  };
}

/**
 * Every answer closes its connection: a kept-alive socket the server times out just as the client reuses it
 * (a loaded machine delays the client past the keep-alive hint) fails a request with a connection error that
 * no script asked for.
 */
function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  response.end(JSON.stringify(body));
}
