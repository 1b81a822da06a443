import type { JsonValue } from '../fingerprints/json-value.js';
import { walkPaths } from './path-shapes.js';
import { renderPath } from './release-path.js';

/** The paths of a released JSON payload: leaves (scalars and empty containers) with their JSON text and shape, and inner containers. */
export interface PayloadPaths {
  readonly leaves: ReadonlyMap<string, { readonly json: string; readonly shape: string }>;
  readonly containers: ReadonlySet<string>;
}

/** Every rendered path of `payload` (a canonical JSON value). The root itself is not a path. */
export function payloadPaths(payload: JsonValue): PayloadPaths {
  const leaves = new Map<string, { json: string; shape: string }>();
  const containers = new Set<string>();
  walkPaths(payload, (value, at, shape, leaf) => {
    const path = renderPath(at.map(String));
    if (leaf) leaves.set(path, { json: JSON.stringify(value), shape: shape.text });
    else containers.add(path);
  });
  return { leaves, containers };
}
