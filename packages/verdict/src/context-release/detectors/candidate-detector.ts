import type { DataClass } from '../data-class.js';
import type { DetectedSpan } from './detected-span.js';
import { DetectionInputError } from './detection-input.error.js';
import type { PiiDetector } from './pii-detector.interface.js';

/** The accepted extent of a candidate, as offsets into the scanned text. */
export interface SpanBounds {
  readonly start: number;
  readonly end: number;
}

/** Turns one candidate match into an accepted extent, or `undefined` when the candidate is not a value of this kind. */
export type CandidateCheck = (match: RegExpExecArray, text: string) => SpanBounds | undefined;

/** Rejects anything but a string before a detector touches it. */
export function assertText(text: unknown, where: string): asserts text is string {
  if (typeof text !== 'string')
    throw new DetectionInputError(`${where} needs a string, got ${text === null ? 'null' : typeof text}`);
}

/** A cheap test that rules a text out before the candidate pattern runs (no candidate can match without it). */
export type Prefilter = (text: string) => boolean;

/** Texts without a decimal digit hold no card, IBAN, SSN, phone number or IP address. */
export const HAS_DIGIT: Prefilter = (text) => /[0-9]/.test(text);

/**
 * Where the scan resumes after a candidate the check rejected. A candidate may run into the value that follows it
 * (`FY24 DE89 3704 …`, where the IBAN pattern starts at `FY24`), so the default resumes one character after the
 * rejected candidate's start; the patterns' lookbehinds keep a candidate from starting mid-token.
 */
export type ResumeAfterRejection = (match: RegExpExecArray) => number;

/** The next character after a rejected candidate's start: a value is found wherever it starts. */
export const NEXT_CHARACTER: ResumeAfterRejection = (match) => match.index + 1;

/** Each pattern's global twin, compiled once. */
const globals = new WeakMap<RegExp, RegExp>();

/** Runs `pattern` over `text` and keeps the candidates `check` accepts, as spans of `detector`. */
export function scanCandidates(
  detector: Pick<PiiDetector, 'name' | 'label' | 'dataClass'>,
  pattern: RegExp,
  check: CandidateCheck,
  text: string,
  prefilter?: Prefilter,
  resumeAfterRejection: ResumeAfterRejection = NEXT_CHARACTER,
): DetectedSpan[] {
  const spans: DetectedSpan[] = [];
  if (prefilter !== undefined && !prefilter(text)) return spans;
  let global = globals.get(pattern);
  if (global === undefined)
    globals.set(
      pattern,
      (global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`)),
    );
  // The global twin is shared: `lastIndex` starts at 0 and is reset however the scan ends. Scans are
  // synchronous and checks never scan, so no other scan can interleave.
  global.lastIndex = 0;
  try {
    for (let match = global.exec(text); match !== null; match = global.exec(text)) {
      const bounds = check(match, text);
      if (bounds !== undefined) spans.push(makeSpan(detector, bounds.start, bounds.end));
      // Resume right after an accepted span (never inside it: no span is reported twice or overlapped), or where
      // `resumeAfterRejection` says after a rejected candidate, always past the candidate's start. Worst case: every
      // position starts a candidate, so a scan costs O(text length × longest candidate), each candidate being bounded
      // (at most 64 characters for an IBAN, 318 for an e-mail address).
      global.lastIndex = Math.max(bounds === undefined ? resumeAfterRejection(match) : bounds.end, match.index + 1);
    }
  } finally {
    global.lastIndex = 0;
  }
  return spans;
}

/** A frozen span attributed to `detector`. */
export function makeSpan(
  detector: { readonly name: string; readonly label: string; readonly dataClass: DataClass },
  start: number,
  end: number,
): DetectedSpan {
  return Object.freeze({ detector: detector.name, label: detector.label, dataClass: detector.dataClass, start, end });
}

/**
 * A detector made of a candidate pattern (bounded quantifiers only, so a scan is linear in the text length) and a check
 * in code that accepts or rejects each candidate.
 */
export function candidateDetector(
  name: string,
  label: string,
  dataClass: DataClass,
  pattern: RegExp,
  check: CandidateCheck,
  prefilter?: Prefilter,
  resumeAfterRejection: ResumeAfterRejection = NEXT_CHARACTER,
): PiiDetector {
  const identity = { name, label, dataClass };
  return Object.freeze({
    ...identity,
    detect(text: string): readonly DetectedSpan[] {
      assertText(text, `${name} detector`);
      return scanCandidates(identity, pattern, check, text, prefilter, resumeAfterRejection);
    },
  });
}
