import type { BaseMessage } from '@langchain/core/messages';
import { isPlainObject } from '../shared/is-plain-object.js';
import { utf8Text } from '../shared/utf8-text.js';

/** Keys of a content part that describe it rather than hold what the model reads. */
const DESCRIPTIVE_KEYS: ReadonlySet<string> = new Set([
  'type',
  'source_type',
  'mime_type',
  'mimeType',
  'media_type',
  'id',
  'index',
]);

/**
 * A message's text, as provenance reads it: its string content, or each content part on a line of its own — a text
 * part's text, and of any other part (a file by URL or with inline text, a link, an image by URL, a plain-text
 * document) every string it holds, so that a value a provider shows the model there (a URL it fetches, a document's
 * text) is in the window's text. Bytes are not text (`data` of an image, a recording, a PDF; `data:` URLs): what
 * they show no rule can read. The `data` of a text part or a `text/*` file is its text (also when base64).
 */
export function textOf(message: BaseMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  return content.map((part) => (typeof part === 'string' ? part : partText(part))).join('\n');
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

/** The strings of one content part: its `text` first, then the others it holds, bytes left out. */
function partText(part: object): string {
  const { text } = part as { text?: unknown };
  const strings: string[] = typeof text === 'string' ? [text] : [];
  // A `text` that is not a string (`{ value: … }`, as some providers shape it) is read for the strings it holds.
  if (typeof text !== 'string') collect(text, strings);
  collectFields(part, strings, 'text');
  return strings.join('\n');
}

/** The strings of an object's fields but `skipped`: its `data` only where the object says it is text. */
function collectFields(value: object, into: string[], skipped?: string): void {
  for (const [key, each] of Object.entries(value)) {
    if (key === skipped || DESCRIPTIVE_KEYS.has(key)) continue;
    if (key === 'data') {
      if (isTextual(value)) collectText(each, into);
    } else collect(each, into);
  }
}

function collect(value: unknown, into: string[]): void {
  if (typeof value === 'string') {
    if (!value.startsWith('data:')) into.push(value);
  } else if (Array.isArray(value)) for (const each of value) collect(each, into);
  else if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value)) collectFields(value, into);
}

/** Whether an object's `data` is text: a `text-plain` part, a source of type `text`, a `text/*` media type. */
function isTextual(value: object): boolean {
  const { type, source_type, mime_type, mimeType, media_type } = value as Record<string, unknown>;
  const media = [mime_type, mimeType, media_type].find((each) => typeof each === 'string') as string | undefined;
  return type === 'text-plain' || type === 'text' || source_type === 'text' || media?.startsWith('text/') === true;
}

/** A text's `data`: the string as it is and, when it reads as base64 of UTF-8, decoded; bytes decoded. */
function collectText(data: unknown, into: string[]): void {
  if (typeof data !== 'string' && !ArrayBuffer.isView(data)) return;
  if (typeof data === 'string') into.push(data);
  const decoded = utf8Text(data);
  if (decoded !== undefined) into.push(decoded);
}
