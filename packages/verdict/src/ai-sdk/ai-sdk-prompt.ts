import type { LanguageModelMiddleware } from 'ai';
import { shownText } from '../shared/shown-text.js';

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
 * The text parts of an assistant message, each on a line of its own (two parts are never read as one word), as the
 * tracker labels the model's answer; other parts (files, tool calls, reasoning) are read apart from them.
 */
export function partsText(content: readonly { type: string }[]): string {
  return content
    .filter((part): part is { type: 'text'; text: string } => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

/**
 * A user message's text: each part on a line of its own, a text part's text and what a file part shows the model
 * (`shownText`: its inline text, the text of a `text/*` file's bytes or `data:` URL, the URL a provider fetches it
 * from, its name), as every runtime reads a part (ADR 0209).
 */
export function userText(content: Extract<AiSdkMessage, { role: 'user' }>['content']): string {
  return content.map((part) => (part.type === 'text' ? part.text : shownText(part))).join('\n');
}

/**
 * What the model reads of a tool result, as text: its text, its JSON, or its content's text parts and what its other
 * parts show (`shownText`: a file's inline text, the text of a `text/*` file's bytes, its URL and name), each on a
 * line of its own (other bytes are not text: the result is labelled all the same).
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
      return output.value.map((part) => (part.type === 'text' ? part.text : shownText(part))).join('\n');
    case 'execution-denied':
      return output.reason ?? '';
    default:
      // An output kind this version does not know: its whole JSON, so that it is labelled all the same.
      return JSON.stringify(output);
  }
}

/** What a file part shows the model as text (`shownText`); `''` for bytes that are not text alone. */
export function fileText(part: object): string {
  return shownText(part);
}
