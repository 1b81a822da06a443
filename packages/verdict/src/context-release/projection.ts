import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { MAX_CANONICAL_DEPTH } from '../fingerprints/canonical-json.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import { InvalidReleaseRequestError } from './invalid-release-request.error.js';
import { FORBIDDEN_KEYS, type ReleasePath, WILDCARD, coversPath, renderPath } from './release-path.js';

/** What to release and how to scrub it; redaction and scan paths address positions in the source payload. */
export interface ProjectionRules {
  readonly only: readonly ReleasePath[];
  readonly redact: readonly ReleasePath[];
  readonly replacement: string;
  readonly scan: readonly ReleasePath[];
  /** Scrubs one free-text field marked by `scan`; returns the text unchanged when nothing was found. */
  readonly scrub: (text: string) => string;
}

/** The projected, redacted and scanned payload, with the released paths each step changed. */
export interface Projection {
  readonly payload: Record<string, unknown>;
  /** Rendered paths (in the released payload) whose value structured redaction replaced. */
  readonly redactedPaths: readonly string[];
  /** Rendered paths (in the released payload) whose text free-text scanning changed. */
  readonly scannedPaths: readonly string[];
}

/** One level of the allowlist as a trie: `whole` releases the subtree; `*` is a child like any key. */
interface Selection {
  whole: boolean;
  readonly children: Map<string, Selection>;
}

const MISSING = Symbol('missing');
type Projected = unknown | typeof MISSING;

/**
 * Builds the released payload from `source` in one pass: only values at allowlisted paths, redaction and
 * scanning applied leaf by leaf. Objects are built with `defineProperty` and never receive `__proto__`,
 * `constructor` or `prototype` keys, however the allowlist reaches them. Arrays keep the order of their
 * released elements; an element from which nothing is released is left out, so indices can shift.
 *
 * @throws InvalidReleaseRequestError when a path descends into a class instance (release plain data).
 * @throws NonCanonicalValueError for a cycle or nesting deeper than {@link MAX_CANONICAL_DEPTH} in a released subtree.
 */
export function project(source: Record<string, unknown>, rules: ProjectionRules): Projection {
  const run = new ProjectionRun(rules);
  const payload = run.container(source, [selectionOf(rules.only)], [], []);
  return { payload: (payload === MISSING ? {} : payload) as Record<string, unknown>, redactedPaths: run.redacted, scannedPaths: run.scanned };
}

function selectionOf(paths: readonly ReleasePath[]): Selection {
  const root: Selection = { whole: false, children: new Map() };
  for (const { segments } of paths) {
    let node = root;
    for (const segment of segments) {
      let child = node.children.get(segment);
      if (child === undefined) node.children.set(segment, (child = { whole: false, children: new Map() }));
      node = child;
    }
    node.whole = true;
  }
  return root;
}

/** A plain object or an array: the only values projection descends into. */
export function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return Array.isArray(value) || isPlainObject(value);
}

/** The own entries projection may read: array elements (no holes) or enumerable string keys, never the forbidden ones or `undefined`. */
function entriesOf(value: Record<string, unknown> | unknown[]): Array<[string, unknown]> {
  const entries: Array<[string, unknown]> = [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (i in value && value[i] !== undefined) entries.push([String(i), value[i]]);
  } else {
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) continue;
      const item = value[key];
      if (item !== undefined) entries.push([key, item]);
    }
  }
  return entries;
}

/** Adds a key without ever invoking a setter (`__proto__` on `Object.prototype`) or an inherited accessor. */
function put(target: Record<string, unknown> | unknown[], key: string, value: unknown): void {
  if (Array.isArray(target)) target.push(value);
  else Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

class ProjectionRun {
  readonly redacted: string[] = [];
  readonly scanned: string[] = [];

  constructor(private readonly rules: ProjectionRules) {}

  /** A container reached by the allowlist but not released whole: only the selected children. */
  container(source: Record<string, unknown> | unknown[], selections: readonly Selection[], sourcePath: string[], outPath: string[]): Projected {
    const out: Record<string, unknown> | unknown[] = Array.isArray(source) ? [] : {};
    let released = 0;
    for (const [key, value] of entriesOf(source)) {
      const next: Selection[] = [];
      for (const selection of selections) {
        const exact = selection.children.get(key);
        const any = selection.children.get(WILDCARD);
        if (exact !== undefined) next.push(exact);
        if (any !== undefined) next.push(any);
      }
      if (next.length === 0) continue;
      const childSource = [...sourcePath, key];
      const childOut = [...outPath, Array.isArray(out) ? String(out.length) : key];
      let child: Projected;
      if (next.some((selection) => selection.whole)) child = this.whole(value, childSource, childOut, new Set());
      else if (isContainer(value)) child = this.container(value, next, childSource, childOut);
      else if (typeof value === 'object' && value !== null) {
        const kind = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name ?? 'exotic';
        throw new InvalidReleaseRequestError(
          `An only() path descends into a ${kind} instance: release plain objects and arrays (map class instances to plain data first).`,
        );
      } else child = MISSING; // a path that continues below a scalar does not exist
      if (child === MISSING) continue;
      put(out, key, child);
      released++;
    }
    return released === 0 ? MISSING : out;
  }

  /** A released subtree, copied leaf by leaf so that redaction and scanning see every leaf's source path. */
  private whole(value: unknown, sourcePath: string[], outPath: string[], ancestors: Set<object>): unknown {
    if (!isContainer(value)) return this.leaf(value, sourcePath, outPath);
    if (ancestors.has(value)) throw new NonCanonicalValueError(`$.${renderPath(outPath)}`, 'cycle');
    if (outPath.length >= MAX_CANONICAL_DEPTH) throw new NonCanonicalValueError(`$.${renderPath(outPath)}`, `nested deeper than ${MAX_CANONICAL_DEPTH} levels`);
    ancestors.add(value);
    const out: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
    const entries = entriesOf(value);
    for (const [key, item] of entries) {
      const childOut = [...outPath, Array.isArray(out) ? String(out.length) : key];
      put(out, key, this.whole(item, [...sourcePath, key], childOut, ancestors));
    }
    ancestors.delete(value);
    // An empty container is a leaf of the released payload: redaction covers it like a scalar.
    return entries.length === 0 ? this.leaf(out, sourcePath, outPath) : out;
  }

  private leaf(value: unknown, sourcePath: string[], outPath: string[]): unknown {
    if (this.rules.redact.some((path) => coversPath(path, sourcePath))) {
      this.redacted.push(renderPath(outPath));
      return this.rules.replacement;
    }
    if (typeof value === 'string' && this.rules.scan.some((path) => coversPath(path, sourcePath))) {
      const scrubbed = this.rules.scrub(value);
      if (scrubbed !== value) this.scanned.push(renderPath(outPath));
      return scrubbed;
    }
    return value;
  }
}
