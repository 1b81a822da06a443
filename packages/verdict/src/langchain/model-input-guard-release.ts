import type { ToolMessage } from '@langchain/core/messages';
import { RELEASE_SEAL_KEY } from './release-seal.js';

/** For each tool message a model-input guard answered a tool call with, the message it made it from. */
const releases = new WeakMap<ToolMessage, ToolMessage>();

/** What labels a release of a tool's result, once a guard outside the labeller makes one (see {@link onRelease}). */
export type ReleaseListener = (released: ToolMessage) => Promise<void>;

const listeners = new WeakMap<ToolMessage, ReleaseListener>();

/**
 * Asks to be told when a model-input guard releases `result`: a provenance tracker inside the guard labels the
 * release as the guard makes it, before the run can pause and the release come back from a checkpoint as another
 * message (ADR 0159).
 */
export function onRelease(result: ToolMessage, listener: ReleaseListener): void {
  listeners.set(result, listener);
}

/**
 * Notes that the guard made `released` from `from`: the tool's result it released, or `released` itself for the
 * guard's own answer (a refused call); tells the listener of `from`. Answers `released` once the listener is done.
 */
export async function noteRelease(released: ToolMessage, from: ToolMessage = released): Promise<ToolMessage> {
  releases.set(released, from);
  if (from !== released) await listeners.get(from)?.(released);
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
