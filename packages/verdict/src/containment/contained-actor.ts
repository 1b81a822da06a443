import type { ActionContext } from '../context/action-context.js';
import type { ActionContextOptions } from '../context/action-context-options.interface.js';
import { actorFingerprint, moduleActorKey } from '../context/actor-key.js';

/**
 * The subject of the actor kill switch that contains `context`'s actor: `sha256(actorKeyText(key))` of the
 * module's `actorKey` (what an operator types to `verdict contain actor`), never a capability's own key. Step 0,
 * human decisions and review items (for their requester) name an actor by it alike.
 *
 * @throws VerdictConfigurationError when the key is blank or missing (it would make actors one).
 * @throws NonCanonicalValueError when the key is not plain JSON: set `actorKey`.
 */
export function containedActorFingerprint(context: ActionContext, options: ActionContextOptions): string {
  return actorFingerprint(context, moduleActorKey(options));
}
