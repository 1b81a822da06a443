/** A proposal's tool-call id as Verdict reads it: the id (`null` when there is none), or why it is malformed. */
export type ProposedToolCallId =
  { readonly wellFormed: true; readonly id: string | null } | { readonly wellFormed: false; readonly problem: string };

/**
 * The tool-call id of a proposal (untrusted transport metadata). `undefined`, `null` and a blank string are no id:
 * each is treated exactly as absent, so they never share a receipt slot nor get a fingerprint. A non-blank string is
 * the id as given; a finite number its decimal string. Anything else (a boolean, an object, `NaN`, an infinity) is
 * malformed, and the envelope refuses it (a recorded `deny` at `proposal`).
 */
export function proposedToolCallId(toolCallId: unknown): ProposedToolCallId {
  if (toolCallId === undefined || toolCallId === null) return { wellFormed: true, id: null };
  if (typeof toolCallId === 'string') return { wellFormed: true, id: toolCallId.trim() === '' ? null : toolCallId };
  if (typeof toolCallId === 'number' && Number.isFinite(toolCallId))
    return { wellFormed: true, id: String(toolCallId) };
  return {
    wellFormed: false,
    problem: typeof toolCallId === 'number' ? 'a non-finite number' : `a ${typeof toolCallId}`,
  };
}
