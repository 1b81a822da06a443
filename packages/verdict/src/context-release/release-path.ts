import { InvalidReleaseRequestError } from './invalid-release-request.error.js';

/** Matches every key of an object, or every index of an array, at one level of a release path. */
export const WILDCARD = '*';

/** Keys that mutate prototypes when copied naively: never addressable, never released. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Separates the segments of a written path. */
const SEPARATOR = '.';
/** Escapes one character inside a key where a path is written: `\.` a dot, `\\` a backslash, `\*` a star. */
const ESCAPE = '\\';
const ESCAPABLE: ReadonlySet<string> = new Set([SEPARATOR, ESCAPE, WILDCARD]);

/**
 * `key` as one segment of a written path: `\` and `.` inside it escaped by `\` (`tax.id` → `tax\.id`), and `*` too
 * when `star` (in a shape, where a bare `*` stands for any array position). The one escaping rule of every path
 * Verdict writes (evidence, errors); {@link parseReleasePath} reads it back.
 */
export function escapeKey(key: string, star = false): string {
  return key.replace(star ? /[\\.*]/g : /[\\.]/g, (c) => `${ESCAPE}${c}`);
}

/**
 * A parsed dot path of `only()`, `redact()` or `scan()`: `orders.*.status` → `['orders', '*', 'status']`,
 * `profile.tax\.id` → `['profile', 'tax.id']`.
 */
export interface ReleasePath {
  /** The path as the caller wrote it. */
  readonly text: string;
  readonly segments: readonly string[];
}

/**
 * Parses a dot path, written as evidence writes paths ({@link escapeKey}): a segment is a literal object key or
 * array index, or {@link WILDCARD}; inside a key, `\.` is a dot, `\\` a backslash and `\*` a star.
 * @throws InvalidReleaseRequestError for a non-string, an empty segment, a `\` that escapes none of `.`, `\`, `*`,
 *   a key that is exactly `*` (only the wildcard reaches it), or a segment naming `__proto__`, `constructor` or
 *   `prototype`.
 */
export function parseReleasePath(text: unknown, role: string): ReleasePath {
  if (typeof text !== 'string' || text.length === 0)
    throw new InvalidReleaseRequestError(`Every ${role} path must be a non-empty string.`);
  const segments = splitPath(text, role);
  if (segments.some((segment) => segment.length === 0)) {
    throw new InvalidReleaseRequestError(
      `The ${role} path "${text}" has an empty segment: write dot paths such as "orders.*.status".`,
    );
  }
  const forbidden = segments.find((segment) => FORBIDDEN_KEYS.has(segment));
  if (forbidden !== undefined) {
    throw new InvalidReleaseRequestError(
      `The ${role} path "${text}" names "${forbidden}", which is never released (prototype pollution).`,
    );
  }
  return Object.freeze({ text, segments: Object.freeze(segments) });
}

/** The segments of `text`, split at each unescaped `.`, escapes resolved. @throws InvalidReleaseRequestError */
function splitPath(text: string, role: string): string[] {
  const segments: string[] = [];
  let segment = '';
  let escaped = false;
  const end = () => {
    // A segment is the wildcard only as a bare `*`: a key `*` cannot be told apart from it.
    if (escaped && segment === WILDCARD)
      throw new InvalidReleaseRequestError(
        `The ${role} path "${text}" names the key "*", which only the wildcard reaches: write *.`,
      );
    segments.push(segment);
    segment = '';
    escaped = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === SEPARATOR) end();
    else if (c !== ESCAPE) segment += c;
    else if (ESCAPABLE.has(text[i + 1] ?? '')) {
      segment += text[++i]!;
      escaped = true;
    } else
      throw new InvalidReleaseRequestError(
        `The ${role} path "${text}" has a "\\" that escapes none of ".", "\\", "*": write a dot inside a key as "\\." and a backslash as "\\\\".`,
      );
  }
  end();
  return segments;
}

/** Parses a list of paths, dropping duplicates (first spelling kept). */
export function parseReleasePaths(texts: unknown, role: string): readonly ReleasePath[] {
  if (!Array.isArray(texts)) throw new InvalidReleaseRequestError(`${role} takes an array of dot paths.`);
  const seen = new Map<string, ReleasePath>();
  for (const text of texts) {
    const path = parseReleasePath(text, role);
    if (!seen.has(path.text)) seen.set(path.text, path);
  }
  return [...seen.values()];
}

/** Whether `pattern` addresses `concrete` or one of its ancestors (so `concrete` lies in the pattern's subtree). */
export function coversPath(pattern: ReleasePath, concrete: readonly string[]): boolean {
  if (pattern.segments.length > concrete.length) return false;
  return pattern.segments.every((segment, i) => segment === WILDCARD || segment === concrete[i]);
}

/** Whether `pattern` addresses a path below `concrete` (so its next segment names, or is `*` for, a key there). */
export function passesThrough(pattern: ReleasePath, concrete: readonly string[]): boolean {
  if (pattern.segments.length <= concrete.length) return false;
  return concrete.every((segment, i) => pattern.segments[i] === WILDCARD || pattern.segments[i] === segment);
}

/**
 * Whether some concrete path can be addressed by both patterns, one of them (or both) by way of a subtree:
 * their common prefix is compatible segment by segment (equal, or a wildcard on either side).
 */
export function canOverlap(a: ReleasePath, b: ReleasePath): boolean {
  const shared = Math.min(a.segments.length, b.segments.length);
  for (let i = 0; i < shared; i++) {
    const x = a.segments[i];
    const y = b.segments[i];
    if (x !== WILDCARD && y !== WILDCARD && x !== y) return false;
  }
  return true;
}

/**
 * A concrete path as evidence lists it: segments joined by `.`, with `\` and `.` inside a key escaped by `\`
 * ({@link escapeKey}), so that two different paths never render alike. {@link parseReleasePath} reads it back.
 */
export function renderPath(segments: readonly string[]): string {
  return segments.map((segment) => escapeKey(segment)).join(SEPARATOR);
}

/**
 * Where a value of a released payload lies, as an error names it (`$.orders.3.*`): array positions as they are, an
 * object key as it is only when `spelled` holds it (a segment the release's own paths write), any other key as
 * {@link WILDCARD}. A payload's keys can be data (a map keyed by e-mail addresses), and errors reach logs.
 */
export function maskedPath(at: readonly (string | number)[], spelled: ReadonlySet<string> = new Set()): string {
  return renderPath([
    '$',
    ...at.map((step) => (typeof step === 'string' && !spelled.has(step) ? WILDCARD : String(step))),
  ]);
}
