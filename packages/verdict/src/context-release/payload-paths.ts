import type { JsonValue } from '../fingerprints/json-value.js';
import { PathShapes, type PathShape } from './path-shapes.js';
import { renderPath } from './release-path.js';

/** The paths of a released JSON payload: leaves (scalars and empty containers) with their JSON text and shape, and inner containers. */
export interface PayloadPaths {
  readonly leaves: ReadonlyMap<string, { readonly json: string; readonly shape: string }>;
  readonly containers: ReadonlySet<string>;
}

/** Every rendered path of `payload` (a canonical JSON value). The root itself is not a path. */
export function payloadPaths(payload: JsonValue): PayloadPaths {
  const shapes = new PathShapes();
  const leaves = new Map<string, { json: string; shape: string }>();
  const containers = new Set<string>();
  const walk = (value: JsonValue, segments: string[], shape: PathShape): void => {
    const entries: Array<[string, JsonValue, PathShape]> =
      typeof value !== 'object' || value === null
        ? []
        : Array.isArray(value)
          ? value.map((item, i) => [String(i), item, shapes.index(shape)])
          : Object.entries(value).map(([key, item]) => [key, item, shapes.key(shape, key)]);
    if (entries.length === 0) {
      if (segments.length > 0) leaves.set(renderPath(segments), { json: JSON.stringify(value), shape: shape.text });
      return;
    }
    if (segments.length > 0) containers.add(renderPath(segments));
    for (const [key, item, childShape] of entries) walk(item, [...segments, key], childShape);
  };
  walk(payload, [], shapes.root);
  return { leaves, containers };
}
