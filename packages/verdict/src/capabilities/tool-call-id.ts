import { isStorableText } from '../shared/storable-text.js';

/**
 * The longest tool-call id Verdict accepts, in UTF-16 code units (JavaScript's `length`): within the 255
 * characters of every column that stores one (`verdict_approval_receipts.tool_call_id`,
 * `verdict_review_items.request_key`) on every engine, and the cap of the MCP server's `_meta` tool-call id.
 */
export const MAX_TOOL_CALL_ID_LENGTH = 200;

/** A proposal's tool-call id as Verdict reads it: the id (`null` when there is none), or why it is malformed. */
export type ProposedToolCallId =
  { readonly wellFormed: true; readonly id: string | null } | { readonly wellFormed: false; readonly problem: string };

/**
 * The tool-call id of a proposal (untrusted transport metadata). `undefined`, `null` and a blank string are no id:
 * each is treated exactly as absent, so they never share a receipt slot nor get a fingerprint. A non-blank string of
 * at most {@link MAX_TOOL_CALL_ID_LENGTH} characters, well-formed and without U+0000 ({@link isStorableText}), is the
 * id as given; a finite number its decimal string. Anything else (a longer string, one holding U+0000 — PostgreSQL
 * refuses it — or a lone surrogate — it has no fingerprint of its own —, a boolean, an object, `NaN`, an infinity) is
 * malformed, and the envelope refuses it (a recorded `deny` at `proposal`) before anything is stored, alike on every
 * engine.
 */
export function proposedToolCallId(toolCallId: unknown): ProposedToolCallId {
  if (toolCallId === undefined || toolCallId === null) return { wellFormed: true, id: null };
  if (typeof toolCallId === 'string') {
    if (toolCallId.trim() === '') return { wellFormed: true, id: null };
    if (toolCallId.length > MAX_TOOL_CALL_ID_LENGTH)
      return { wellFormed: false, problem: `longer than ${MAX_TOOL_CALL_ID_LENGTH} characters` };
    if (!isStorableText(toolCallId))
      return { wellFormed: false, problem: 'a string holding U+0000 or a lone surrogate' };
    return { wellFormed: true, id: toolCallId };
  }
  if (typeof toolCallId === 'number' && Number.isFinite(toolCallId))
    return { wellFormed: true, id: String(toolCallId) };
  return {
    wellFormed: false,
    problem: typeof toolCallId === 'number' ? 'a non-finite number' : `a ${typeof toolCallId}`,
  };
}
