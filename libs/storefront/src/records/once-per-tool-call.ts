import { atMostOnce } from '@verdict/nestjs';

/**
 * The records capabilities' `atMostOnce`: one execution per tool call of a conversation, so a redelivered tool
 * call does not export, upload or send twice, while every new call (a new tool-call id) still runs.
 */
export function oncePerToolCall(name: string) {
  return atMostOnce({
    name,
    key: (envelope) => ({
      conversation: (envelope.context.metadata?.conversationId ?? null) as string | number | null,
      call: envelope.toolCallId ?? envelope.id,
    }),
  });
}
