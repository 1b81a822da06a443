import type { BaseMessage } from '@langchain/core/messages';

/** A message's text: its string content, or its text parts joined. */
export function textOf(message: BaseMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  return content
    .map((part) => (typeof part === 'string' ? part : part.type === 'text' ? String(part.text) : ''))
    .join('\n');
}
