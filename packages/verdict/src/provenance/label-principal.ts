import { randomUUID } from 'node:crypto';
import type { ActionContext } from '../context/action-context.js';
import { type ActorKey, checkedActorKey, defaultActorKey, principalKeyOf } from '../context/actor-key.js';

/**
 * The principal key of `context` (actor and tenant, under the module's `actorKey`), or `undefined` for an actor
 * without a stable key: such an actor has no windows of its own, and no labels but its context's
 * ({@link labelPrincipal}). An actor has no stable key when the key it gives is missing (`null`, `undefined` or a
 * blank string: `VerdictConfigurationError`) or is not plain JSON (`NonCanonicalValueError`; no `actorKey` and an
 * actor that is not plain JSON, say). Verdict's own checks of the key decide that, never the key function (ADR 0204;
 * `checkedActorKey`).
 *
 * @throws whatever the module's `actorKey` throws itself (a `TypeError` on a missing property, a failed lookup):
 *   an application fault, thrown as it is, as receipts, review items and decision records do. It never narrows the
 *   actor to its action context.
 */
export function stablePrincipalKey(context: ActionContext, actorKey: ActorKey = defaultActorKey): string | undefined {
  // The key is asked once, outside any catch (`checkedActorKey`).
  const checked = checkedActorKey(context.actor, actorKey, (key) => principalKeyOf(context, () => key));
  return checked.stable ? checked.value : undefined;
}

/** The keys of actors without a stable key, one per action context. */
const keyless = new WeakMap<ActionContext, string>();

/** A key no principal key can be (those are JSON arrays of fingerprints), for one action context alone. */
export function keylessPrincipal(context: ActionContext): string {
  let key = keyless.get(context);
  if (key === undefined) keyless.set(context, (key = `context:${randomUUID()}`));
  return key;
}

/**
 * Whose labels a text remembered now is ({@link ProvenanceLabels}): the principal of the current action context, or
 * `undefined` outside any (the application's own labels, given at boot: everyone's). An actor without a stable key
 * is known by its action context: a key no principal key can be (those are JSON arrays of fingerprints), so what
 * its context vouched for vouches in that context's runs alone. What the module's `actorKey` throws itself propagates
 * ({@link stablePrincipalKey}).
 */
export function labelPrincipal(
  current: () => ActionContext | undefined,
  actorKey?: ActorKey,
): () => string | undefined {
  return () => {
    const context = current();
    if (context === undefined) return undefined;
    return stablePrincipalKey(context, actorKey) ?? keylessPrincipal(context);
  };
}
