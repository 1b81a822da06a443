import { type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import { HeldEvidence } from '../evidence/held-evidence.js';
import { toolCallOf } from './tool-call-of.js';

/**
 * A langchain v1 agent middleware that lets a read-only capability's result go on while its evidence is written
 * (docs/evidence.md, ADR 0122). A bound tool of a capability declared `readOnly: true` that passed no mutating gate
 * returns without waiting for its evidence write; before each model call the barrier waits for the writes of the
 * tool results in the state, and at the end of the run for any left, so no result reaches a model (or the caller)
 * before its record is durable. A failed write fails the run there with `EvidenceWriteFailedError`. Every other
 * call awaits its evidence as it always does, and so does a sub-agent's call inside this agent's tool call.
 *
 * Like any middleware with a tool hook, it lets a tool's exception out of the agent instead of answering it to
 * the model (see {@link applicationFaultMiddleware}). A run resumed in another process from a checkpoint saved
 * while a write was still held cannot wait for that write: the result was checkpointed, the record may be lost
 * with the process that wrote it.
 *
 * @example
 * createAgent({ model, tools: [verdictTools.bound(lookupOrder, 'orders.view')], middleware: [evidenceBarrier()] })
 */
export function evidenceBarrier() {
  const held = new HeldEvidence();
  return createMiddleware({
    name: 'VerdictEvidenceBarrier',
    wrapToolCall: (request, handler) =>
      held.during(
        toolCallOf(
          (request.runtime as { configurable?: unknown } | undefined)?.configurable,
          request.toolCall.id ?? '',
        ),
        () => handler(request),
      ),
    wrapModelCall: async (request, handler) => {
      await held.release(toolResultIds(request.state.messages));
      return handler(request);
    },
    afterAgent: async (state) => {
      await held.release(toolResultIds((state as { messages?: unknown }).messages));
      return undefined;
    },
  });
}

/** The tool-call ids of the tool results among `messages`. */
function* toolResultIds(messages: unknown): Iterable<string> {
  if (!Array.isArray(messages)) return;
  for (const message of messages as BaseMessage[]) if (ToolMessage.isInstance(message)) yield message.tool_call_id;
}
