import { Trust } from '../context-release/trust.js';
import { labelContent, type LabelledContent } from './labelled-content.js';
import { ProvenanceSource, ProvenanceSourceKind } from './provenance-source.js';
import type { ProvenanceWindow } from './provenance-window.js';

/** A sub-agent's input, written by the agent whose tool call started it: the sub-agent's principal's message. */
export const CALLER = ProvenanceSource.agent('caller');
/** The source of what Verdict itself writes into the window for quarantined reading: handles, failures. */
export const QUARANTINE_SOURCE = ProvenanceSource.application('quarantine');
/** The source of Verdict's answers to the plan tool. */
export const PLAN_SOURCE = ProvenanceSource.application('plan');

/**
 * Whether a trusted item of a window can vouch for a value, for the positive rule and for the negative rule's "in no
 * trusted content": what a principal typed, what the application wrote, a trusted result, the trusted set. A model's
 * own answers cannot, trusted as they are when their window was: a value the model states — computed, or taken
 * from a tool description no label covers — is not thereby derived from trusted content. Nor can the texts Verdict
 * writes into the window (quarantined reading's handles, plan mode's answers), which repeat what the model or a
 * source named. A sub-agent's input (`agent:caller`) is its principal's message, written by the calling model: it
 * vouches only for what the window it was written in vouches for ({@link delegatedInput}).
 */
export function vouchesForValues(item: LabelledContent): boolean {
  const { kind, name } = item.label.source;
  if (kind === ProvenanceSourceKind.Agent) return name === CALLER.name;
  return kind !== ProvenanceSourceKind.Application || (name !== QUARANTINE_SOURCE.name && name !== PLAN_SOURCE.name);
}

/** How deep sub-agents may nest for a value to be traced through their inputs: deeper, it is not derived. */
const DELEGATION_DEPTH = 16;

/** The content each sub-agent input vouches through: what its caller's window vouches with (ADR 0146). */
const delegations = new WeakMap<LabelledContent, readonly LabelledContent[]>();

/**
 * The content of `window` that can vouch for a value: trusted, never seen untrusted in the window, and of a source
 * that vouches ({@link vouchesForValues}). Nothing from a window Verdict did not observe.
 */
export function vouchingContent(window: ProvenanceWindow): readonly LabelledContent[] {
  if (!window.observed) return [];
  const seenUntrusted = new Set(
    window.items.filter((item) => item.label.trust === Trust.Untrusted).map((item) => item.label.fingerprint),
  );
  return window.items.filter(
    (item) =>
      item.label.trust !== Trust.Untrusted && !seenUntrusted.has(item.label.fingerprint) && vouchesForValues(item),
  );
}

/**
 * A sub-agent's input that the calling agent's model wrote in a clean window, `caller` (ADR 0146): trusted
 * `agent:caller`, but a value in it is derived only where the content of `caller` that vouches holds it too. A value
 * the calling model only stated — computed, or read in a tool description — is no more derived in the sub-agent
 * than in the calling agent; a value the user typed to the calling agent, its system prompt or a trusted result, is.
 */
export function delegatedInput(text: string, caller: ProvenanceWindow): LabelledContent {
  const item = labelContent(text, CALLER, Trust.Trusted);
  delegateThrough(item, caller);
  return item;
}

/**
 * The same input written again from another clean window: it vouches through the latest one. A sub-agent input's
 * text is remembered for its principal, so the same task written from another window is the same item.
 */
export function delegateThrough(item: LabelledContent, caller: ProvenanceWindow): void {
  if (!isDelegatedInput(item)) return;
  delegations.set(item, Object.freeze(vouchingContent(caller).filter((parent) => parent !== item)));
}

/**
 * Whether `holds(item)` — a value occurs in `item` — holds through the sub-agent inputs it passes: for a sub-agent's
 * input, also in the content it vouches through, and so on up to {@link DELEGATION_DEPTH} callers. An input nothing
 * was delegated through vouches for nothing.
 */
export function vouchesThroughCallers(item: LabelledContent, holds: (item: LabelledContent) => boolean): boolean {
  const through = (current: LabelledContent, depth: number): boolean => {
    if (!holds(current)) return false;
    if (!isDelegatedInput(current)) return true;
    if (depth >= DELEGATION_DEPTH) return false;
    return (delegations.get(current) ?? []).some((parent) => through(parent, depth + 1));
  };
  return through(item, 0);
}

function isDelegatedInput(item: LabelledContent): boolean {
  const { kind, name } = item.label.source;
  return kind === ProvenanceSourceKind.Agent && name === CALLER.name;
}
