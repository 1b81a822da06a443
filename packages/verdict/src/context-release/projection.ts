import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { MAX_CANONICAL_DEPTH } from '../fingerprints/canonical-json.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import { DEFAULT_REDACTION } from './detectors/redact-text.js';
import { InvalidReleaseRequestError } from './invalid-release-request.error.js';
import { PathShapes, type PathShape } from './path-shapes.js';
import { FORBIDDEN_KEYS, type ReleasePath, WILDCARD, maskedPath } from './release-path.js';

/** What to release and how to scrub it; redaction and scan paths address positions in the source payload. */
export interface ProjectionRules {
  readonly only: readonly ReleasePath[];
  readonly redact: readonly ReleasePath[];
  readonly replacement: string;
  readonly scan: readonly ReleasePath[];
  /**
   * Scrubs one free-text field marked by `scan` (a string, or a number as canonical JSON writes it); returns the text unchanged when
   * nothing was found. `at` is the field's path in the released payload (array positions as released), valid only
   * during the call.
   */
  readonly scrub: (text: string, at: readonly (string | number)[]) => string;
  /**
   * The label a detector finds in a key of a redacted object, or `undefined`: a redacted object with such a key is
   * redacted whole; a top-level key of the payload is kept, and {@link Projection.dataKeyLabel} says so.
   */
  readonly redactKey: (key: string) => string | undefined;
  /**
   * The label a detector finds in a key of a scanned object, or `undefined`: a scanned object with such a key is
   * replaced whole by `[REDACTED]`; a top-level key of the payload is kept, and {@link Projection.dataKeyLabel} says so.
   */
  readonly scanKey: (key: string) => string | undefined;
}

/** The projected, redacted and scanned payload, and the shapes of what was released and changed. */
export interface Projection {
  /** Plain JSON (checked as it was copied); object keys in RFC 8785 order. */
  readonly payload: Record<string, unknown>;
  /** Whether `JSON.stringify(payload)` is its RFC 8785 text (false when an object has integer-like keys, which JavaScript orders first). */
  readonly canonicalOrder: boolean;
  /** Shapes (array indices as `*`) of the released leaves. */
  readonly releasedShapes: readonly string[];
  /** Shapes of the leaves structured redaction replaced, and how many leaves. */
  readonly redactedShapes: readonly string[];
  readonly redactedCount: number;
  /** Shapes of the strings free-text scanning changed, and how many strings. */
  readonly scannedShapes: readonly string[];
  readonly scannedCount: number;
  /** The label found in a redacted or scanned top-level key of the payload, which is kept (it is a field name): the release must be refused. */
  readonly dataKeyLabel: string | undefined;
}

/** One level of a path list as a trie: `whole` covers the subtree; `*` is a child like any key. */
interface Trie {
  whole: boolean;
  readonly children: Map<string, Trie>;
  /** Built on first use, as the projection visits every element and object alike: `[this]`, `[children['*']]` (or none), and the named children's keys in RFC 8785 order. */
  alone?: readonly Trie[];
  anyOnly?: readonly Trie[];
  named?: readonly string[];
}

const MISSING = Symbol('missing');
const NONE: readonly Trie[] = [];
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const SURROGATE = /[\uD800-\uDFFF]/;
/** Keys JavaScript orders before all others in an object, whatever the insertion order. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;

/**
 * Builds the released payload from `source` in one pass: only values at allowlisted paths, redaction and
 * scanning applied leaf by leaf, every released value checked as plain JSON (ADR 0002) on the way.
 * Objects are built with their keys in RFC 8785 order, as own data properties, and never receive
 * `__proto__`, `constructor` or `prototype` keys, however the allowlist reaches them. Arrays keep the
 * order of their released elements; an element from which nothing is released is left out, so indices
 * can shift. Redaction and scan paths address the source payload.
 *
 * @throws InvalidReleaseRequestError when a path descends into a class instance (release plain data).
 * @throws NonCanonicalValueError for a released value that is not plain JSON, a cycle, or nesting deeper than {@link MAX_CANONICAL_DEPTH}.
 */
export function project(source: Record<string, unknown>, rules: ProjectionRules): Projection {
  const run = new ProjectionRun(rules);
  const payload = run.container(
    source,
    [trieOf(rules.only)],
    { nodes: trieRoots(rules.redact), covered: false },
    { nodes: trieRoots(rules.scan), covered: false },
    run.shapes.root,
  );
  return {
    payload: (payload === MISSING ? {} : payload) as Record<string, unknown>,
    canonicalOrder: run.canonicalOrder,
    releasedShapes: run.shapes.render(run.released),
    redactedShapes: run.shapes.render(run.redacted),
    redactedCount: run.redactedCount,
    scannedShapes: run.shapes.render(run.scanned),
    scannedCount: run.scannedCount,
    dataKeyLabel: run.dataKeyLabel,
  };
}

function trieOf(paths: readonly ReleasePath[]): Trie {
  const root: Trie = { whole: false, children: new Map() };
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

const trieRoots = (paths: readonly ReleasePath[]): readonly Trie[] => (paths.length === 0 ? NONE : [trieOf(paths)]);

/** The trie nodes `key` leads to from `nodes`: the exact key and the wildcard. */
function advance(nodes: readonly Trie[], key: string): readonly Trie[] {
  if (nodes.length === 0) return NONE;
  if (nodes.length === 1) {
    // The common case, once per element of a large payload: answered without allocating.
    const [node] = nodes;
    const exact = node!.children.get(key);
    const any = node!.children.get(WILDCARD);
    if (exact === undefined) return (node!.anyOnly ??= any === undefined ? NONE : (any.alone ??= [any]));
    if (any === undefined) return (exact.alone ??= [exact]);
    return [exact, any];
  }
  let next: Trie[] | undefined;
  for (const node of nodes) {
    const exact = node.children.get(key);
    const any = node.children.get(WILDCARD);
    if (exact !== undefined) (next ??= []).push(exact);
    if (any !== undefined) (next ??= []).push(any);
  }
  return next ?? NONE;
}

const covers = (nodes: readonly Trie[]): boolean => nodes.some((node) => node.whole);

/** Where a redaction or scan list stands at one position: the trie nodes still open, or covered from above. */
interface Reach {
  readonly nodes: readonly Trie[];
  /** A path of the list addresses this position or an ancestor: everything below is in its subtree. */
  readonly covered: boolean;
}

const COVERED: Reach = Object.freeze({ nodes: NONE, covered: true });
const UNREACHED: Reach = Object.freeze({ nodes: NONE, covered: false });

/** The reach of a redaction or scan list at the child `key`: once covered, covered all the way down. */
function reach(from: Reach, key: string): Reach {
  if (from.covered) return COVERED;
  const nodes = advance(from.nodes, key);
  if (nodes === NONE) return UNREACHED;
  return covers(nodes) ? COVERED : { nodes, covered: false };
}

/** A plain object or an array: the only values projection descends into. */
export function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === 'object' && value !== null && (Array.isArray(value) || isPlainObject(value));
}

class ProjectionRun {
  readonly shapes = new PathShapes();
  readonly released = new Set<PathShape>();
  readonly redacted = new Set<PathShape>();
  readonly scanned = new Set<PathShape>();
  redactedCount = 0;
  scannedCount = 0;
  dataKeyLabel: string | undefined;
  canonicalOrder = true;
  /** The path in the released payload (array positions as released), for `scrub` and error messages. */
  private readonly outPath: Array<string | number> = [];
  private readonly ancestors = new Set<object>();

  constructor(private readonly rules: ProjectionRules) {}

  /** A container reached by the allowlist but not released whole: only the selected children. */
  container(
    source: Record<string, unknown> | unknown[],
    only: readonly Trie[],
    redact: Reach,
    scan: Reach,
    shape: PathShape,
  ): unknown {
    if (Array.isArray(source)) {
      const out: unknown[] = [];
      const itemShape = this.shapes.index(shape);
      for (let i = 0; i < source.length; i++) {
        const item = source[i];
        if (item === undefined) continue; // a hole or an undefined element is absent
        const key = String(i);
        const child = this.selected(item, advance(only, key), redact, scan, key, out.length, itemShape);
        if (child !== MISSING) out.push(child);
      }
      return out.length === 0 ? MISSING : out;
    }
    const keys = this.selectedKeysOf(source, only);
    // The payload itself stays an object: its own keys are the application's field names.
    if (shape === this.shapes.root)
      this.dataKeyLabel ??=
        this.dataKey(keys, redact, this.rules.redactKey) ?? this.dataKey(keys, scan, this.rules.scanKey);
    else if (this.dataKey(keys, redact, this.rules.redactKey) !== undefined)
      return this.leaf(source, true, false, shape);
    else if (this.dataKey(keys, scan, this.rules.scanKey) !== undefined) return this.scannedWhole(shape);
    const out: Record<string, unknown> = {};
    let released = 0;
    for (const key of keys) {
      const next = advance(only, key);
      if (next.length === 0) continue;
      const child = this.selected(source[key], next, redact, scan, key, key, this.shapes.key(shape, key));
      if (child === MISSING) continue;
      out[key] = child; // never a forbidden key (see keysOf): a plain own property
      released++;
    }
    return released === 0 ? MISSING : out;
  }

  /** One child the allowlist reaches: released whole, descended into, or absent. */
  private selected(
    value: unknown,
    only: readonly Trie[],
    redact: Reach,
    scan: Reach,
    sourceKey: string,
    outKey: string | number,
    shape: PathShape,
  ): unknown {
    if (only.length === 0 || value === undefined) return MISSING;
    const childRedact = reach(redact, sourceKey);
    const childScan = reach(scan, sourceKey);
    this.outPath.push(outKey);
    try {
      if (covers(only)) return this.whole(value, childRedact, childScan, shape);
      if (isContainer(value)) return this.container(value, only, childRedact, childScan, shape);
      if (typeof value === 'object' && value !== null) {
        throw new InvalidReleaseRequestError(
          `An only() path descends into a ${constructorName(value)} instance: release plain objects and arrays (map class instances to plain data first).`,
        );
      }
      return MISSING; // a path that continues below a scalar does not exist
    } finally {
      this.outPath.pop();
    }
  }

  /** A released subtree, copied leaf by leaf so that redaction and scanning see every leaf's source path. */
  private whole(value: unknown, redact: Reach, scan: Reach, shape: PathShape): unknown {
    if (!isContainer(value)) return this.leaf(value, redact.covered, scan.covered, shape);
    const keys = Array.isArray(value) ? [] : this.keysOf(value);
    if (this.dataKey(keys, redact, this.rules.redactKey) !== undefined) return this.leaf(value, true, false, shape);
    if (this.dataKey(keys, scan, this.rules.scanKey) !== undefined) return this.scannedWhole(shape);
    if (this.ancestors.has(value)) this.fail('cycle');
    if (this.outPath.length >= MAX_CANONICAL_DEPTH) this.fail(`nested deeper than ${MAX_CANONICAL_DEPTH} levels`);
    this.ancestors.add(value);
    let out: Record<string, unknown> | unknown[];
    let empty = true;
    if (Array.isArray(value)) {
      const items: unknown[] = (out = []);
      const itemShape = this.shapes.index(shape);
      for (let i = 0; i < value.length; i++) {
        const item = value[i];
        if (item === undefined) continue;
        items.push(this.wholeChild(item, redact, scan, String(i), items.length, itemShape));
        empty = false;
      }
    } else {
      const fields: Record<string, unknown> = (out = {});
      for (const key of keys) {
        const item = value[key];
        if (item === undefined) continue;
        fields[key] = this.wholeChild(item, redact, scan, key, key, this.shapes.key(shape, key)); // never a forbidden key (see keysOf)
        empty = false;
      }
    }
    this.ancestors.delete(value);
    // An empty container is a leaf of the released payload: redaction covers it like a scalar.
    return empty ? this.leaf(out, redact.covered, scan.covered, shape) : out;
  }

  private wholeChild(
    item: unknown,
    redact: Reach,
    scan: Reach,
    sourceKey: string,
    outKey: string | number,
    shape: PathShape,
  ): unknown {
    this.outPath.push(outKey);
    const copy = this.whole(item, reach(redact, sourceKey), reach(scan, sourceKey), shape);
    this.outPath.pop();
    return copy;
  }

  /**
   * The label a detector finds (`label`) in a key that is data to a redaction or scan list, or `undefined`. A key is
   * data when its value is redacted or scanned (the key says what the value hides: a map keyed by e-mail addresses,
   * under `redact(['contacts'])` or `scan(['contacts.*'])`), or when a path's `*` segment matches it above a redacted
   * or scanned leaf (`contacts.*.phone` reaches under every key of `contacts`: a map keyed by data, whose keys the
   * application did not name). Neither list rewrites keys: such an object is redacted whole, or replaced whole
   * ({@link scannedWhole}); at the payload's top level the key is kept and the release refused. Other objects keep
   * their keys, each value redacted or scanned.
   */
  private dataKey(keys: Iterable<string>, list: Reach, label: (key: string) => string | undefined): string | undefined {
    if (!list.covered && list.nodes.length === 0) return undefined;
    // Every node of a redaction or scan trie lies on one of its paths: a `*` child leads to a redacted or scanned leaf.
    const anyKey = list.covered || list.nodes.some((node) => node.children.has(WILDCARD));
    for (const key of keys) {
      if (!anyKey && !reach(list, key).covered) continue;
      const found = label(key);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** A scanned object with data in a key: one `[REDACTED]`, counted as a change scanning made. */
  private scannedWhole(shape: PathShape): string {
    this.released.add(shape);
    this.scanned.add(shape);
    this.scannedCount++;
    return DEFAULT_REDACTION;
  }

  /** A released leaf: redacted where the rules say (whatever it held: it never leaves), else checked as JSON and scanned. */
  private leaf(value: unknown, redacted: boolean, scanned: boolean, shape: PathShape): unknown {
    this.released.add(shape);
    if (redacted) {
      this.redacted.add(shape);
      this.redactedCount++;
      return this.rules.replacement;
    }
    switch (typeof value) {
      case 'string':
        if (SURROGATE.test(value) && LONE_SURROGATE.test(value)) this.fail('string contains a lone surrogate');
        return scanned ? this.scrubbed(value, shape) : value;
      case 'number': {
        if (!Number.isFinite(value)) this.fail(`${value} is not a finite number`);
        // A card or phone number stored as a JSON number is the same number: the text canonical JSON writes for it
        // (`String(value)`: digits, a fraction, an exponent) is scanned, whatever its size, not only a safe integer's.
        if (!scanned) return value;
        const written = String(value);
        const scrubbed = this.scrubbed(written, shape);
        return scrubbed === written ? value : scrubbed;
      }
      case 'boolean':
        return value;
      case 'object':
        if (value !== null && !isContainer(value))
          this.fail(`${constructorName(value)} instance is not a plain object`);
        return value;
      default:
        return this.fail(`${typeof value} is not JSON`);
    }
  }

  private scrubbed(text: string, shape: PathShape): string {
    const scrubbed = this.rules.scrub(text, this.outPath);
    if (scrubbed !== text) {
      this.scanned.add(shape);
      this.scannedCount++;
    }
    return scrubbed;
  }

  /**
   * The keys of `value` the allowlist can reach: every key under a wildcard, else only the keys it names
   * (looked up, not scanned). Either way releasable keys, in RFC 8785 order.
   */
  private selectedKeysOf(value: Record<string, unknown>, only: readonly Trie[]): string[] {
    if (only.some((node) => node.children.has(WILDCARD))) return this.keysOf(value);
    if (only.length === 1) {
      const named = (only[0]!.named ??= [...only[0]!.children.keys()].sort());
      return this.checkedKeys(named.filter((key) => Object.hasOwn(value, key)));
    }
    const named = new Set<string>();
    for (const node of only) for (const key of node.children.keys()) if (Object.hasOwn(value, key)) named.add(key);
    return this.checkedKeys([...named].sort());
  }

  /** An object's releasable keys in RFC 8785 order (UTF-16 code units), never a forbidden or lone-surrogate key. */
  private keysOf(value: Record<string, unknown>): string[] {
    return this.checkedKeys(Object.keys(value).sort());
  }

  private checkedKeys(keys: string[]): string[] {
    let forbidden = false;
    for (const key of keys) {
      const first = key.charCodeAt(0);
      if (first >= 48 && first <= 57 && ARRAY_INDEX.test(key)) this.canonicalOrder = false;
      else if (FORBIDDEN_KEYS.has(key)) forbidden = true;
      if (hasSurrogate(key) && LONE_SURROGATE.test(key)) this.fail('key contains a lone surrogate');
    }
    return forbidden ? keys.filter((key) => !FORBIDDEN_KEYS.has(key)) : keys;
  }

  /** Throws {@link NonCanonicalValueError} where the run stands, every key the allowlist does not spell written `*`. */
  private fail(problem: string): never {
    const spelled = new Set(this.rules.only.flatMap((path) => path.segments));
    throw new NonCanonicalValueError(maskedPath(this.outPath, spelled), problem);
  }
}

/** A character loop: cheaper than a regular expression for the short strings keys are. */
function hasSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdfff) return true;
  }
  return false;
}

function constructorName(value: object): string {
  return (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name ?? 'exotic';
}
