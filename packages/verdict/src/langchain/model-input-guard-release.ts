import type { ToolMessage } from '@langchain/core/messages';
import { RELEASE_SEAL_KEY } from './release-seal.js';

/** For each tool message a model-input guard answered a tool call with, the message it made it from. */
const releases = new WeakMap<ToolMessage, ToolMessage>();

/**
 * Notes that the guard made `released` from `from`: the tool's result it released, or `released` itself for the
 * guard's own answer (a refused call). Answers `released`.
 */
export function noteRelease(released: ToolMessage, from: ToolMessage = released): ToolMessage {
  releases.set(released, from);
  return released;
}

/**
 * What a tool call's answer was made from, for the provenance tracker that labels it: for a message a model-input
 * guard made, the tool's result it released (or the message itself, for the guard's own answer); any other message is
 * what the tool answered — but one that carries a guard's seal, which the guard did not make here (a middleware
 * between them copied it): `undefined`, what it was released from is not known.
 */
export function releasedFrom(message: ToolMessage): ToolMessage | undefined {
  const from = releases.get(message);
  if (from !== undefined) return from;
  return message.additional_kwargs?.[RELEASE_SEAL_KEY] === undefined ? message : undefined;
}
