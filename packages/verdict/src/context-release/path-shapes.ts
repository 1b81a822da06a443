import { escapeKey } from './release-path.js';

/** A path with every array index written `*`: `orders.*.status`. Interned, so a payload's leaves share them. */
export interface PathShape {
  /** Rendered: keys joined by `.`, with `\`, `.` and `*` inside a key escaped by `\`. Empty for the root. */
  readonly text: string;
  readonly keys: Map<string, PathShape>;
  items: PathShape | undefined;
}

/**
 * The shapes of a payload's paths, as evidence records them: which fields left, not which array positions
 * (the payload fingerprint covers the values). One trie per release; a shape is rendered once however many
 * leaves share it.
 */
export class PathShapes {
  readonly root: PathShape = { text: '', keys: new Map(), items: undefined };

  /** The shape of `parent`'s object key `key`. */
  key(parent: PathShape, key: string): PathShape {
    let child = parent.keys.get(key);
    if (child === undefined) parent.keys.set(key, (child = shape(parent, escapeKey(key, true))));
    return child;
  }

  /** The shape of any element of the array at `parent`. */
  index(parent: PathShape): PathShape {
    return (parent.items ??= shape(parent, '*'));
  }

  /** Rendered shapes, sorted and unique. */
  render(shapes: Iterable<PathShape>): string[] {
    return [...new Set([...shapes].map((item) => item.text))].sort();
  }
}

function shape(parent: PathShape, segment: string): PathShape {
  return { text: parent.text === '' ? segment : `${parent.text}.${segment}`, keys: new Map(), items: undefined };
}

/**
 * Visits every node of a JSON value below the root, each parent before its children: its value, its path (object keys,
 * array positions as numbers: one array, valid only during the call), its shape, and whether it is a leaf (a scalar or
 * an empty container). The one walk of a payload's paths: evidence's shapes, a transformer's paths, placeholders.
 */
export function walkPaths(
  root: unknown,
  visit: (value: unknown, at: readonly (string | number)[], shape: PathShape, leaf: boolean) => void,
): void {
  const shapes = new PathShapes();
  const at: Array<string | number> = [];
  const child = (key: string | number, value: unknown, shape: PathShape): void => {
    at.push(key);
    const leaf =
      typeof value !== 'object' ||
      value === null ||
      (Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0);
    visit(value, at, shape, leaf);
    if (!leaf) children(value, shape);
    at.pop();
  };
  const children = (value: object, shape: PathShape): void => {
    if (Array.isArray(value)) value.forEach((item, index) => child(index, item, shapes.index(shape)));
    else for (const [key, item] of Object.entries(value)) child(key, item, shapes.key(shape, key));
  };
  if (typeof root === 'object' && root !== null) children(root, shapes.root);
}

/** The shapes of every leaf (scalar or empty container) of a JSON payload, sorted and unique. */
export function leafShapes(payload: unknown): string[] {
  const leaves = new Set<string>();
  walkPaths(payload, (_value, _at, shape, leaf) => {
    if (leaf) leaves.add(shape.text);
  });
  return [...leaves].sort();
}
