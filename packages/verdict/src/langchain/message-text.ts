import type { BaseMessage } from '@langchain/core/messages';

/** Keys of a content part that describe it rather than hold what the model reads, or hold bytes (`data`). */
const SKIPPED_KEYS: ReadonlySet<string> = new Set([
  'type',
  'source_type',
  'mime_type',
  'mimeType',
  'id',
  'index',
  'data',
]);

/**
 * A message's text, as provenance reads it: its string content, or each content part on a line of its own — a text
 * part's text, and of any other part (a file by URL or with inline text, a link, an image by URL) every string it
 * holds, so that a value a provider shows the model there (a URL it fetches, a document's text) is in the window's
 * text. Bytes (`data`, `data:` URLs) are not text: what an image or a recording shows no rule can read.
 */
export function textOf(message: BaseMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  return content.map((part) => (typeof part === 'string' ? part : partText(part))).join('\n');
}

/** The strings of one content part: its `text` first, then the others it holds, bytes left out. */
function partText(part: object): string {
  const { text } = part as { text?: unknown };
  const strings: string[] = typeof text === 'string' ? [text] : [];
  for (const [key, value] of Object.entries(part))
    if (key !== 'text' && !SKIPPED_KEYS.has(key)) collect(value, strings);
  return strings.join('\n');
}

function collect(value: unknown, into: string[]): void {
  if (typeof value === 'string') {
    if (!value.startsWith('data:')) into.push(value);
  } else if (Array.isArray(value)) for (const each of value) collect(each, into);
  else if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value))
    for (const [key, each] of Object.entries(value)) if (!SKIPPED_KEYS.has(key)) collect(each, into);
}
