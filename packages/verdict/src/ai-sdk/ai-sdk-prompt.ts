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

/** The text parts of a user or assistant message, joined; other parts (files, tool calls, reasoning) are not text. */
export function partsText(content: readonly { type: string }[]): string {
  return content
    .filter((part): part is { type: 'text'; text: string } => part.type === 'text')
    .map((part) => part.text)
    .join('');
}

/** What the model reads of a tool result, as text: its text, its JSON, or its content's text parts. */
export function toolResultText(output: AiSdkToolOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'content':
      return partsText(output.value);
    case 'execution-denied':
      return output.reason ?? '';
    default:
      // An output kind this version does not know: its whole JSON, so that it is labelled all the same.
      return JSON.stringify(output);
  }
}
