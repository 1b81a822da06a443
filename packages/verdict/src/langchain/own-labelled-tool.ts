import { Trust } from '../context-release/trust.js';
import { labelContent } from '../provenance/labelled-content.js';
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
