import { AsyncLocalStorage } from 'node:async_hooks';
import { Trust } from '../context-release/trust.js';
import { labelContent, type LabelledContent } from '../provenance/labelled-content.js';
import type { ProvenanceLabels } from '../provenance/provenance-labels.js';
import type { ProvenanceSource } from '../provenance/provenance-source.js';

const ownLabelled = new WeakSet<object>();

/**
 * Marks a tool Verdict makes whose results it labels itself before they return (the quarantine extract tool, the
 * plan tool): the provenance tracker keeps those labels instead of labelling the result as an unbound tool's.
 */
export function labelsOwnResults<T extends object>(tool: T): T {
  ownLabelled.add(tool);
  return tool;
}

/** Whether `tool` labels its own results ({@link labelsOwnResults}). */
export function isOwnLabelledTool(tool: unknown): boolean {
  return typeof tool === 'object' && tool !== null && ownLabelled.has(tool);
}

/** Labels `text` as Verdict's own (trusted) text under `source`, wherever it enters a window; answers the text. */
export function rememberOwnText(labels: ProvenanceLabels, source: ProvenanceSource, text: string): string {
  labels.remember(text, [labelContent(text, source, Trust.Trusted)]);
  return text;
}

/** The labels an own-labelled tool gave the result of the one tool call it ran in. */
interface OwnResult {
  readonly text: string;
  readonly items: readonly LabelledContent[];
}

const ownResults = new AsyncLocalStorage<{ result?: OwnResult }>();

/**
 * Runs one tool call (the provenance tracker's `wrapToolCall`) and answers the labels an own-labelled tool run
 * inside it handed for its result ({@link labelOwnResult}): that call's own items — an extracted value's, with its
 * source passages — never the module's labels of the same text, which another principal's identical value shares.
 */
export async function withOwnResultLabels<T>(
  fn: () => Promise<T>,
): Promise<{ readonly result: T; readonly own: OwnResult | undefined }> {
  const slot: { result?: OwnResult } = {};
  const result = await ownResults.run(slot, fn);
  return { result, own: slot.result };
}

/**
 * Hands `items`, the labels of `text`, to the tool call the caller runs in: its tracker labels the result with
 * them ({@link withOwnResultLabels}). Answers `text`, the tool's result.
 */
export function labelOwnResult(text: string, items: readonly LabelledContent[]): string {
  const slot = ownResults.getStore();
  if (slot !== undefined) slot.result = Object.freeze({ text, items });
  return text;
}

/** The items an own-labelled tool handed for its result, when the result is exactly the text it handed them for. */
export function ownResultItems(own: OwnResult | undefined, text: string): readonly LabelledContent[] | undefined {
  return own?.text === text ? own.items : undefined;
}
