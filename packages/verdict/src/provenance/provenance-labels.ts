import { fingerprintString } from '../fingerprints/fingerprint.js';
import { rememberBounded } from '../shared/remember-bounded.js';
import { Trust } from '../context-release/trust.js';
import { withoutPassages } from './extraction-passages.js';
import { type LabelledContent, labelledText } from './labelled-content.js';
import type { ProvenanceWindow } from './provenance-window.js';

/** Default number of remembered texts and windows: 10,000 each, oldest forgotten first. */
export const DEFAULT_PROVENANCE_CAPACITY = 10_000;

/**
 * How long an untrusted text must be to be looked for inside other texts, and how much of its start is indexed: 8
 * characters. Shorter texts (`OK`, a status) would be found by chance in what a principal types.
 */
const CONTAINED_MIN = 8;
/** Untrusted texts kept per 8-character start, newest first: texts sharing a start (JSON results) stay cheap. */
const PER_ANCHOR = 16;

/** An untrusted text the module remembers, found inside another text: where, and its untrusted labels. */
export interface ContainedContent {
  readonly start: number;
  readonly length: number;
  readonly items: readonly LabelledContent[];
}

/** A remembered text with untrusted labels, as {@link ProvenanceLabels.untrustedWithin} looks for it. */
interface UntrustedText {
  readonly fingerprint: string;
  readonly length: number;
  readonly items: readonly LabelledContent[];
}

/**
 * What the provenance trackers of one process remember: the labels of every text that entered an agent's
 * context (so a label follows its text into another agent's window), and the window each tool call was
 * proposed in, by principal, thread and tool call (`callWindowKey`: so a run resumed after an approval finds it
 * again, and no other principal's run can leave it), and on the AI SDK and OpenAI Agents the labels of each bound
 * tool's result by the same key (another principal's tool returning the same text never finds them). In process
 * memory, bounded: a forgotten window is unobserved, which the provenance stage treats as untrusted.
 */
export class ProvenanceLabels {
  private readonly texts = new Map<string, readonly LabelledContent[]>();
  private readonly windows = new Map<string, ProvenanceWindow>();
  private readonly results = new Map<string, BoundResult>();
  /** Texts with untrusted labels by their first {@link CONTAINED_MIN} characters: {@link untrustedWithin}'s index. */
  private readonly untrustedByStart = new Map<string, readonly UntrustedText[]>();

  constructor(private readonly capacity = DEFAULT_PROVENANCE_CAPACITY) {}

  /** The labelled items remembered for exactly this text. */
  recall(text: string): readonly LabelledContent[] | undefined {
    return this.texts.get(fingerprintString(text));
  }

  /**
   * Remembers labelled items for a text; a text seen under several labels keeps them all. An extracted value's
   * item is kept without its source passages (`withoutPassages`): they are its extraction's own, and what is
   * remembered here is every principal's who meets the same text.
   */
  remember(text: string, items: readonly LabelledContent[]): readonly LabelledContent[] {
    const key = fingerprintString(text);
    const known = this.texts.get(key) ?? [];
    const fresh = items.filter((item) => !known.some((k) => sameLabel(k, item))).map(withoutPassages);
    const merged = [...known, ...fresh];
    rememberBounded(this.texts, key, merged, this.capacity);
    const untrusted = fresh.filter((item) => item.label.trust === Trust.Untrusted);
    if (untrusted.length > 0) {
      // The text as it entered, and each untrusted part of it (a result's untrusted paths) on its own.
      this.indexUntrusted(text, key, untrusted);
      for (const item of untrusted) {
        const own = labelledText(item);
        if (own !== undefined && own !== text) this.indexUntrusted(own, item.label.fingerprint, [item]);
      }
    }
    return merged;
  }

  /**
   * The untrusted items the module remembers whose own text occurs inside `text` (ADR 0135): a document the
   * application labelled and then wrapped in a template, a tool's result pasted into a message, one content part of
   * several. Earliest first, without overlaps; at one position the longest. Exact text, as labels are.
   */
  untrustedWithin(text: string): readonly ContainedContent[] {
    if (this.untrustedByStart.size === 0) return [];
    const found: ContainedContent[] = [];
    for (let start = 0; start + CONTAINED_MIN <= text.length;) {
      let best: ContainedContent | undefined;
      for (const known of this.untrustedByStart.get(text.slice(start, start + CONTAINED_MIN)) ?? []) {
        const { length } = known;
        if (start + length > text.length || (best !== undefined && best.length >= length)) continue;
        if (fingerprintString(text.slice(start, start + length)) === known.fingerprint)
          best = { start, length, items: known.items };
      }
      if (best === undefined) start++;
      else {
        found.push(best);
        start += best.length;
      }
    }
    return found;
  }

  /** The window a tool call was proposed in. */
  window(thread: string, toolCallId: string): ProvenanceWindow | undefined {
    return this.windows.get(windowKey(thread, toolCallId));
  }

  rememberWindow(thread: string, toolCallId: string, window: ProvenanceWindow): void {
    rememberBounded(this.windows, windowKey(thread, toolCallId), window, this.capacity);
  }

  /** The labels a bound tool's result was given, by the call that returned it, if it returned exactly `text`. */
  result(thread: string, toolCallId: string, text: string): readonly LabelledContent[] | undefined {
    const found = this.results.get(windowKey(thread, toolCallId));
    return found?.text === fingerprintString(text) ? found.items : undefined;
  }

  rememberResult(thread: string, toolCallId: string, text: string, items: readonly LabelledContent[]): void {
    rememberBounded(
      this.results,
      windowKey(thread, toolCallId),
      { text: fingerprintString(text), items },
      this.capacity,
    );
  }

  private indexUntrusted(text: string, fingerprint: string, items: readonly LabelledContent[]): void {
    if (text.length < CONTAINED_MIN) return;
    const start = text.slice(0, CONTAINED_MIN);
    const known = this.untrustedByStart.get(start) ?? [];
    const same = known.find((k) => k.fingerprint === fingerprint);
    const kept = same?.items ?? [];
    const entry = { fingerprint, length: text.length, items: [...kept, ...items.filter((i) => !kept.includes(i))] };
    const others = known.filter((k) => k !== same);
    rememberBounded(this.untrustedByStart, start, [entry, ...others].slice(0, PER_ANCHOR), this.capacity);
  }
}

/** A bound tool's result as a call returned it: the fingerprint of its text, and its labels. */
interface BoundResult {
  readonly text: string;
  readonly items: readonly LabelledContent[];
}

function sameLabel(a: LabelledContent, b: LabelledContent): boolean {
  return (
    a.label.fingerprint === b.label.fingerprint &&
    a.label.trust === b.label.trust &&
    a.label.source.toString() === b.label.source.toString()
  );
}

function windowKey(thread: string, toolCallId: string): string {
  return JSON.stringify([thread, toolCallId]);
}
