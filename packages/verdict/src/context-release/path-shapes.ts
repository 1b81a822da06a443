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
    if (child === undefined)
      parent.keys.set(
        key,
        (child = shape(
          parent,
          key.replace(/[\\.*]/g, (c) => `\\${c}`),
        )),
      );
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

/** The shapes of every leaf (scalar or empty container) of a JSON payload, sorted and unique. */
export function leafShapes(payload: unknown): string[] {
  const shapes = new PathShapes();
  const leaves = new Set<PathShape>();
  const walk = (value: unknown, at: PathShape): void => {
    if (Array.isArray(value) && value.length > 0) value.forEach((item) => walk(item, shapes.index(at)));
    else if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0)
      for (const [key, item] of Object.entries(value)) walk(item, shapes.key(at, key));
    else if (at !== shapes.root) leaves.add(at);
  };
  walk(payload, shapes.root);
  return shapes.render(leaves);
}
