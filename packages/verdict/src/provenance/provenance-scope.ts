import { AsyncLocalStorage } from 'node:async_hooks';
import type { ProvenanceWindow } from './provenance-window.js';

const scope = new AsyncLocalStorage<ProvenanceWindow>();

/**
 * Runs `fn` with `window` as the context window of every proposal made inside it. The LangChain provenance
 * tracker does this for each tool call; application code that executes a proposal on an agent's behalf
 * passes the window the agent saw.
 *
 * @example await withProvenance(window, () => verdict.execute({ capability: 'payments.send', arguments, toolCallId }));
 */
export function withProvenance<T>(window: ProvenanceWindow, fn: () => T): T {
  return scope.run(window, fn);
}

/** The window of the proposal being run, if a caller or the tracker supplied one. */
export function currentProvenanceWindow(): ProvenanceWindow | undefined {
  return scope.getStore();
}
