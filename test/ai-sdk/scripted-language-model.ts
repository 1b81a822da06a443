import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;

/** One model turn: tool calls (name, input, id) or a final text. */
export type ScriptedTurn =
  { readonly toolCalls: readonly { name: string; input: unknown; id: string }[] } | { readonly text: string };

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** The AI SDK's own mock model answering `turns` in order: the model is outside the project, the loop is real. */
export function scriptedLanguageModel(turns: readonly ScriptedTurn[]): MockLanguageModelV4 {
  const results: GenerateResult[] = turns.map((turn) => {
    const content: GenerateResult['content'] =
      'text' in turn
        ? [{ type: 'text', text: turn.text }]
        : turn.toolCalls.map(({ name, input, id }) => ({
            type: 'tool-call',
            toolCallId: id,
            toolName: name,
            input: JSON.stringify(input),
          }));
    const unified = 'text' in turn ? 'stop' : 'tool-calls';
    return { content, finishReason: { unified, raw: unified }, usage, warnings: [] };
  });
  return new MockLanguageModelV4({ doGenerate: results });
}

type StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

/** The same script as {@link scriptedLanguageModel}, streamed part by part (for `streamText`). */
export function scriptedStreamingModel(turns: readonly ScriptedTurn[]): MockLanguageModelV4 {
  const results: StreamResult[] = turns.map((turn) => {
    const parts: StreamPart[] =
      'text' in turn
        ? [
            { type: 'text-start', id: 't' },
            ...[...turn.text.matchAll(/.{1,4}/gs)].map(([delta]) => ({ type: 'text-delta' as const, id: 't', delta })),
            { type: 'text-end', id: 't' },
          ]
        : turn.toolCalls.map(({ name, input, id }) => ({
            type: 'tool-call' as const,
            toolCallId: id,
            toolName: name,
            input: JSON.stringify(input),
          }));
    const unified = 'text' in turn ? 'stop' : 'tool-calls';
    parts.push({ type: 'finish', usage, finishReason: { unified, raw: unified } });
    return { stream: convertArrayToReadableStream(parts) };
  });
  return new MockLanguageModelV4({ doStream: results });
}
