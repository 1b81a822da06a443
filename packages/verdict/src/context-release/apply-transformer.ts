import { assertCanonicalJson } from '../fingerprints/canonical-json.js';
import type { JsonObject } from '../fingerprints/json-value.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import type { ContextTransformer, ReleaseFacts } from './context-transformer.interface.js';
import { InvalidReleaseRequestError } from './invalid-release-request.error.js';
import { payloadPaths } from './payload-paths.js';
import { maskedPath } from './release-path.js';

/** A transformer's result: the new payload, how many paths it changed and their shapes, or a refusal because it added paths. */
export type TransformOutcome =
  | {
      readonly expanded: false;
      readonly payload: JsonObject;
      readonly changedCount: number;
      readonly changedShapes: readonly string[];
    }
  | { readonly expanded: true };

/**
 * Runs one transformer on a copy of `payload` and checks that it added nothing: every leaf of its result
 * must be a path the input already had (a leaf, or a container it collapsed). Changed, collapsed and
 * removed paths are reported as changed.
 *
 * @throws NonCanonicalValueError when the result is not plain JSON, naming where with every key written `*`.
 * @throws InvalidReleaseRequestError when the result is not a plain object.
 */
export async function applyTransformer(
  transformer: ContextTransformer,
  payload: JsonObject,
  facts: ReleaseFacts,
): Promise<TransformOutcome> {
  // A copy made in this realm (structuredClone would build objects of another realm's Object under a VM).
  const result: unknown = await transformer.transform(JSON.parse(JSON.stringify(payload)) as JsonObject, facts);
  if (!isPlainObject(result))
    throw new InvalidReleaseRequestError(`The context transformer "${transformer.name}" must return a plain object.`);
  // Its keys can be data (a map keyed by e-mail addresses): an error names where by position, every key written `*`.
  assertCanonicalJson(result, maskedPath);
  const before = payloadPaths(payload);
  const after = payloadPaths(result);
  const changed = new Map<string, string>();
  for (const [path, leaf] of after.leaves) {
    const previous = before.leaves.get(path);
    if (previous === undefined && !before.containers.has(path)) return { expanded: true };
    if (previous?.json !== leaf.json) changed.set(path, leaf.shape);
  }
  for (const [path, leaf] of before.leaves) if (!after.leaves.has(path)) changed.set(path, leaf.shape);
  return {
    expanded: false,
    payload: result as JsonObject,
    changedCount: changed.size,
    changedShapes: [...new Set(changed.values())],
  };
}
