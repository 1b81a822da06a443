import { Trust } from '../context-release/trust.js';
import { labelContent, type LabelledContent } from './labelled-content.js';
import type { ProvenanceLabel } from './provenance-label.js';
import { UNOBSERVED_SOURCE } from './provenance-source.js';

/**
 * The labelled content that was in the model's context window when it proposed a call. Built by the
 * LangChain provenance tracker for every tool call; application code that calls `VerdictService.execute`
 * on behalf of an agent passes one with `withProvenance`.
 *
 * @example
 * const window = ProvenanceWindow.of([labelContent(userText, ProvenanceSource.user('chat'), Trust.Trusted)]);
 */
export class ProvenanceWindow {
  private constructor(
    readonly items: readonly LabelledContent[],
    /** `false` when Verdict did not observe the window: its content is unknown, hence treated as untrusted. */
    readonly observed: boolean,
  ) {
    Object.freeze(this);
  }

  static of(items: readonly LabelledContent[]): ProvenanceWindow {
    return new ProvenanceWindow(Object.freeze([...items]), true);
  }

  /**
   * A window Verdict did not see (an agent's tool call without the provenance tracker, or a run resumed in
   * another process): the sound answer is that untrusted content may have been in it.
   */
  static unobserved(): ProvenanceWindow {
    return (ProvenanceWindow.unobservedWindow ??= new ProvenanceWindow(
      Object.freeze([labelContent('', UNOBSERVED_SOURCE, Trust.Untrusted)]),
      false,
    ));
  }

  private static unobservedWindow: ProvenanceWindow | undefined;

  /** Whether untrusted (or unobserved) content was in the window. */
  get untrusted(): boolean {
    return !this.observed || this.items.some((item) => item.label.trust === Trust.Untrusted);
  }

  /** The labels of the untrusted items, one per distinct source, in window order. */
  untrustedSources(): readonly ProvenanceLabel[] {
    const seen = new Map<string, ProvenanceLabel>();
    for (const { label } of this.items)
      if (label.trust === Trust.Untrusted && !seen.has(label.source.toString()))
        seen.set(label.source.toString(), label);
    return [...seen.values()];
  }
}
