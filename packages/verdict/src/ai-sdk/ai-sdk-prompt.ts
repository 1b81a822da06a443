import type { LanguageModelMiddleware } from 'ai';
import { utf8Text } from '../shared/utf8-text.js';

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
 * What the model reads of a tool result, as text: its text, its JSON, or its content's text parts, inline text files
 * and the URLs and names of its files, each on a line of its own (a file's bytes are not text: the result is
 * labelled all the same).
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
          return part.type === 'file' ? fileText(part) : '';
        })
        .join('\n');
    case 'execution-denied':
      return output.reason ?? '';
    default:
      // An output kind this version does not know: its whole JSON, so that it is labelled all the same.
      return JSON.stringify(output);
  }
}

/**
 * What a file part shows the model as text: its inline text, the text of a `text/*` file's bytes, or the URL a
 * provider fetches it from, and its name, each on a line of its own; `''` for other bytes alone.
 */
export function fileText(part: {
  readonly data: unknown;
  readonly mediaType?: string;
  readonly filename?: string;
}): string {
  const data = part.data as { type?: string; text?: unknown; url?: unknown; data?: unknown } | null;
  const bytes = data?.type === 'data' && part.mediaType?.startsWith('text') === true ? data.data : undefined;
  const shown =
    data?.type === 'text'
      ? data.text
      : data?.type === 'url'
        ? data.url
        : typeof bytes === 'string' || ArrayBuffer.isView(bytes)
          ? utf8Text(bytes)
          : undefined;
  return [shown === undefined ? '' : String(shown), part.filename ?? ''].filter((text) => text !== '').join('\n');
}
