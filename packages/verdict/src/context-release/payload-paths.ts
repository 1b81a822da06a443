import type { JsonValue } from '../fingerprints/json-value.js';
import { renderPath } from './release-path.js';

/** The paths of a released JSON payload: leaves (scalars and empty containers) with their JSON text, and inner containers. */
export interface PayloadPaths {
  readonly leaves: ReadonlyMap<string, string>;
  readonly containers: ReadonlySet<string>;
}

/** Every rendered path of `payload` (a canonical JSON value). The root itself is not a path. */
export function payloadPaths(payload: JsonValue): PayloadPaths {
  const leaves = new Map<string, string>();
  const containers = new Set<string>();
  const walk = (value: JsonValue, segments: string[]): void => {
    const entries: Array<[string, JsonValue]> =
      typeof value !== 'object' || value === null ? [] : Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
    if (entries.length === 0) {
      if (segments.length > 0) leaves.set(renderPath(segments), JSON.stringify(value));
      return;
    }
    if (segments.length > 0) containers.add(renderPath(segments));
    for (const [key, item] of entries) walk(item, [...segments, key]);
  };
  walk(payload, []);
  return { leaves, containers };
}
