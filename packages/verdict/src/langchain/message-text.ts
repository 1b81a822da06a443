import type { BaseMessage } from '@langchain/core/messages';
import { isPlainObject } from '../shared/is-plain-object.js';
import { shownText } from '../shared/shown-text.js';

/**
 * A message's text, as provenance reads it: its string content, or each content part on a line of its own, read as
 * every runtime reads a part (`shownText`: a text part's text, and every string another part shows the model — a
 * file's inline text or URL, a link, an image's URL, a `text/*` file's data or `data:` URL, decoded). What the bytes
 * of an image, a recording or a PDF show no rule can read.
 */
export function textOf(message: BaseMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  return content.map((part) => shownText(part)).join('\n');
}

/**
 * What a message's content holds, by the shape of its parts: `empty` — `''`, no parts, or only parts that are `''`
 * or `{ type: 'text', text: '' }` and nothing else; `other` — a part that is not text (an image, a file, a provider
 * block); `text` — text parts only (whose text may still read as empty: {@link textOf} says).
 */
export function contentKind(message: BaseMessage): 'empty' | 'text' | 'other' {
  const { content } = message;
  if (typeof content === 'string') return content === '' ? 'empty' : 'text';
  // Past the types, a part can be a string (LangChain's own content sometimes is).
  const parts: readonly unknown[] = content;
  if (parts.some((part) => typeof part !== 'string' && (part as { type?: unknown }).type !== 'text')) return 'other';
  return parts.every((part) => part === '' || isEmptyTextPart(part)) ? 'empty' : 'text';
}

/** `{ type: 'text', text: '' }`, no other key. */
function isEmptyTextPart(part: unknown): boolean {
  return (
    isPlainObject(part) && part['text'] === '' && Object.keys(part).every((key) => key === 'type' || key === 'text')
  );
}
