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
  let input: string;
  try {
    input = fingerprint(call.input);
  } catch {
    return undefined;
  }
  return { thread: JSON.stringify([principal, thread]), call: JSON.stringify([call.id, input]) };
}
