import type { LanguageModelMiddleware } from 'ai';

/** The prompt a language-model middleware reads (`LanguageModelV4Prompt`), typed from the SDK's middleware. */
export type AiSdkPrompt = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params']['prompt'];
/** One message of an {@link AiSdkPrompt}. */
export type AiSdkMessage = AiSdkPrompt[number];
/** A tool result's output in a prompt. */
export type AiSdkToolOutput = Extract<
  Extract<AiSdkMessage, { role: 'tool' }>['content'][number],
  { type: 'tool-result' }
>['output'];

/**
 * The text parts of a user or assistant message, each on a line of its own (two parts are never read as one word); other
 * parts (files, tool calls, reasoning) are not text.
 */
export function partsText(content: readonly { type: string }[]): string {
  return content
    .filter((part): part is { type: 'text'; text: string } => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

/**
 * What the model reads of a tool result, as text: its text, its JSON, or its content's text parts and inline text
 * files (an image or a file by bytes or URL has no text: the result is labelled all the same).
 */
export function toolResultText(output: AiSdkToolOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'content':
      return output.value
        .map((part) => {
          if (part.type === 'text') return part.text;
          const data = part.type === 'file' ? (part.data as { type?: string; text?: unknown }) : undefined;
          return data?.type === 'text' && typeof data.text === 'string' ? data.text : '';
        })
        .join('\n');
    case 'execution-denied':
      return output.reason ?? '';
    default:
      // An output kind this version does not know: its whole JSON, so that it is labelled all the same.
      return JSON.stringify(output);
  }
}
