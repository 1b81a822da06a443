import type { ActionContext } from '../context/action-context.js';
import { conversationIdOf } from '../context/conversation-id.js';
import { fingerprint } from '../fingerprints/fingerprint.js';

/** Where a tool call's window is kept in {@link ProvenanceLabels}: its principal and thread, its call. */
export interface CallWindowKey {
  readonly thread: string;
  readonly call: string;
}

/**
 * The key of the window a tool call was proposed in: the principal (actor and tenant fingerprints), the thread
 * or conversation, the call id and the fingerprint of its arguments. A thread id and a call id are the caller's
 * choice (a client's thread id, a provider that numbers its call ids): without the principal, another actor
 * running in the same thread would leave the window someone else's paused call resumes in; without the
 * arguments, a later proposal reusing the id would. `undefined` without a principal, for an empty call id, or
 * for arguments that are not plain JSON (the pipeline refuses those; no window is needed to refuse them).
 */
export function callWindowKey(
  principal: string | undefined,
  thread: string,
  call: { readonly id: string; readonly input: unknown },
): CallWindowKey | undefined {
  if (principal === undefined || call.id === '') return undefined;
  return fingerprintedCallWindowKey(principal, thread, call.id, argumentsFingerprint(call.input));
}

/** {@link callWindowKey}, given the fingerprint of the call's arguments ({@link argumentsFingerprint}). */
export function fingerprintedCallWindowKey(
  principal: string | undefined,
  thread: string,
  id: string,
  args: string | undefined,
): CallWindowKey | undefined {
  if (principal === undefined || id === '' || args === undefined) return undefined;
  return { thread: JSON.stringify([principal, thread]), call: JSON.stringify([id, args]) };
}

/** The fingerprint of a call's arguments that windows are kept by; `undefined` for arguments not plain JSON. */
export function argumentsFingerprint(args: unknown): string | undefined {
  try {
    return fingerprint(args);
  } catch {
    return undefined;
  }
}

/**
 * The thread of the conversation `context` names (`metadata.conversationId`), where every runtime's tracker keeps the
 * windows of its calls so that a later request of the conversation finds them; `undefined` when it names none.
 *
 * @throws VerdictConfigurationError for a malformed conversation id (`conversationIdOf`).
 */
export function conversationThread(context: ActionContext): string | undefined {
  const conversation = conversationIdOf(context);
  return conversation === null ? undefined : JSON.stringify(['conversation', conversation]);
}
