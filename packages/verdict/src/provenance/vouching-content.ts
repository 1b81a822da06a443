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

/** The content each sub-agent input vouches through: what its caller's window vouches with (ADR 0146). */
const delegations = new WeakMap<LabelledContent, readonly LabelledContent[]>();
/** The sub-agent inputs made in each caller's window, by text: one item per caller window and text. */
const inputsByCaller = new WeakMap<ProvenanceWindow, Map<string, LabelledContent>>();

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
 * A sub-agent's input as it stands in a window of a sub-agent run inside a tool call proposed in `caller` (ADR 0146):
 * trusted `agent:caller`, but a value in it is trusted content only where the content of `caller` that vouches holds
 * it too. A value the calling model only stated — computed, or read in a tool description — is no more derived in the
 * sub-agent than in the calling agent; a value the user typed to the calling agent, its system prompt or a trusted
 * result, is. One item per caller window and text: the same task written in another window vouches through that one.
 */
export function delegatedInput(text: string, caller: ProvenanceWindow): LabelledContent {
  let inputs = inputsByCaller.get(caller);
  if (inputs === undefined) inputsByCaller.set(caller, (inputs = new Map()));
  let item = inputs.get(text);
  if (item === undefined) {
    item = labelContent(text, CALLER, Trust.Trusted);
    delegations.set(item, Object.freeze([...vouchingContent(caller)]));
    inputs.set(text, item);
  }
  return item;
}

/**
 * `items` (the labels remembered for `text`) as they stand in a window built inside a tool call proposed in
 * `caller`. A sub-agent's input there vouches through `caller` alone ({@link delegatedInput}): its other trusted labels
 * (the same sentence the principal once typed, a result that was trusted elsewhere) are left out, its untrusted ones
 * kept. Outside a tool call a sub-agent input's mark vouches for nothing (it is no one's principal's message there).
 */
export function asDelegated(
  items: readonly LabelledContent[],
  text: string,
  caller: ProvenanceWindow | undefined,
): readonly LabelledContent[] {
  if (caller === undefined || !items.some(isDelegatedInput)) return items;
  return [...items.filter((item) => item.label.trust === Trust.Untrusted), delegatedInput(text, caller)];
}

/**
 * Whether `holds(item)` — a value occurs in `item` — holds through the sub-agent inputs it passes: for a sub-agent's
 * input, also in some content of its caller's window that vouches, and so on up the callers. An input nothing was
 * delegated through vouches for nothing. Each item is asked once per value.
 */
export function vouchesThroughCallers(item: LabelledContent, holds: (item: LabelledContent) => boolean): boolean {
  // Every trusted item of a window is asked for every candidate value: most are no sub-agent's input.
  if (!isDelegatedInput(item)) return holds(item);
  const asked = new Set<LabelledContent>();
  const through = (current: LabelledContent): boolean => {
    if (asked.has(current)) return false;
    asked.add(current);
    if (!holds(current)) return false;
    if (!isDelegatedInput(current)) return true;
    return (delegations.get(current) ?? []).some(through);
  };
  return through(item);
}

/** Whether `item` is a sub-agent's input (`agent:caller`): a mark, or an item delegated through a caller's window. */
export function isDelegatedInput(item: LabelledContent): boolean {
  const { kind, name } = item.label.source;
  return kind === ProvenanceSourceKind.Agent && name === CALLER.name;
}
