import { utf8Text } from './utf8-text.js';

/** Keys of a content part that describe it rather than hold what the model reads. */
const DESCRIPTIVE_KEYS: ReadonlySet<string> = new Set([
  'type',
  'source_type',
  'mime_type',
  'mimeType',
  'media_type',
  'mediaType',
  'id',
  'index',
]);

/** A `data:` URL: its media type and parameters, and its body. */
const DATA_URL = /^data:([^,]*),(.*)$/is;

/**
 * The text a content part shows the model, as provenance reads it in every runtime (ADR 0152, ADR 0209): a string
 * part as it is; of any other part its `text` first, then every other string it holds, each on a line of its own — a
 * file's inline text, the URL a provider fetches a file or an image from (a `URL` as its address), a file's name.
 *
 * Bytes are not text: the `data` of an image, a recording or a PDF, a `data:` URL of such a media type. But for a part
 * that says it holds text — a `text-plain` part, a source of type `text`, a `text/*` media type, its own or that of a
 * part it is inside — its `data` is its text, decoded too when it is base64 of UTF-8; and a `data:` URL of a `text/*`
 * media type (or of none, which is `text/plain`) is read as the text it encodes.
 *
 * @example shownText({ type: 'input_file', file: 'data:text/plain;base64,UGF5…', filename: 'invoice.txt' })
 *   === 'Pay…\ninvoice.txt'
 */
export function shownText(part: unknown): string {
  if (typeof part === 'string') return part;
  if (typeof part !== 'object' || part === null) return '';
  const { text } = part as { text?: unknown };
  const strings: string[] = typeof text === 'string' ? [text] : [];
  const textual = isTextual(part);
  // A `text` that is not a string (`{ value: … }`, as some providers shape it) is read for the strings it holds.
  if (typeof text !== 'string') collect(text, strings, textual);
  collectFields(part, strings, textual, 'text');
  return strings.join('\n');
}

/** The strings of an object's fields but `skipped`: its `data` bytes only where the object (or its part) is text. */
function collectFields(value: object, into: string[], textual: boolean, skipped?: string): void {
  for (const [key, each] of Object.entries(value)) {
    if (key === skipped || DESCRIPTIVE_KEYS.has(key)) continue;
    if (key === 'data' && (typeof each === 'string' || ArrayBuffer.isView(each))) {
      if (textual) collectText(each, into);
    } else collect(each, into, textual);
  }
}

function collect(value: unknown, into: string[], textual: boolean): void {
  if (typeof value === 'string') collectString(value, into);
  else if (value instanceof URL) collectString(value.href, into);
  else if (Array.isArray(value)) for (const each of value) collect(each, into, textual);
  else if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value))
    collectFields(value, into, textual || isTextual(value));
}

/** A string as the model reads it: a `data:` URL as the text it encodes (none, for bytes), any other as it is. */
function collectString(value: string, into: string[]): void {
  const dataUrl = DATA_URL.exec(value);
  if (dataUrl === null) {
    into.push(value);
    return;
  }
  const [mediaType = '', ...parameters] = dataUrl[1]!.split(';').map((each) => each.trim().toLowerCase());
  if (!isTextMediaType(mediaType === '' ? 'text/plain' : mediaType)) return;
  const body = dataUrl[2]!;
  const decoded = parameters.includes('base64') ? utf8Text(paddedBase64(body)) : percentDecoded(body);
  if (decoded !== undefined) into.push(decoded);
}

/** Base64 as a provider decodes it: blanks dropped, the URL-safe alphabet read as the standard one, padding added. */
function paddedBase64(body: string): string {
  const compact = percentDecoded(body)?.replace(/\s/g, '').replace(/-/g, '+').replace(/_/g, '/') ?? body;
  return compact.padEnd(Math.ceil(compact.length / 4) * 4, '=');
}

function percentDecoded(body: string): string | undefined {
  try {
    return decodeURIComponent(body);
  } catch {
    return undefined;
  }
}

/**
 * Whether an object's `data` is text: a `text-plain` part, a part or source of type `text`, a `text/*` media type (or
 * the top-level `text`).
 */
function isTextual(value: object): boolean {
  const { type, source_type, mime_type, mimeType, media_type, mediaType } = value as Record<string, unknown>;
  const media = [mime_type, mimeType, media_type, mediaType].find((each) => typeof each === 'string') as
    string | undefined;
  return (
    type === 'text-plain' ||
    type === 'text' ||
    source_type === 'text' ||
    (media !== undefined && isTextMediaType(media.trim().toLowerCase()))
  );
}

function isTextMediaType(media: string): boolean {
  return media === 'text' || media.startsWith('text/');
}

/** A text's `data`: the string as it is and, when it reads as base64 of UTF-8, decoded; bytes decoded. */
function collectText(data: string | ArrayBufferView, into: string[]): void {
  if (typeof data === 'string') collectString(data, into);
  const decoded = utf8Text(data);
  if (decoded !== undefined) into.push(decoded);
}
