import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { canonicalJson } from '../fingerprints/canonical-json.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import type { ActionContext } from './action-context.js';

/**
 * The actor's stable key (module option `actorKey`): what an operator types to contain an actor
 * (`verdict contain actor customer:72`), and what security events fingerprint. An opaque application id,
 * never PII. Default: {@link defaultActorKey}.
 *
 * @example actorKey: (actor: User) => `customer:${actor.id}`
 */
export type ActorKey = (actor: any) => string;

/** The default {@link ActorKey}: a string actor as it is, any other actor as its RFC 8785 canonical JSON. */
export function defaultActorKey(actor: unknown): string {
  return typeof actor === 'string' ? actor : canonicalJson(actor);
}

/**
 * `sha256(actorKey(context.actor))`.
 *
 * @throws VerdictConfigurationError when the key is not a non-blank string (it would make actors one).
 * @throws NonCanonicalValueError when the default key meets an actor that is not plain JSON: set `actorKey`.
 */
export function actorFingerprintOf(context: ActionContext, actorKey: ActorKey = defaultActorKey): string {
  const key: unknown = actorKey(context.actor);
  if (typeof key !== 'string' || key.trim() === '')
    throw new VerdictConfigurationError(
      `The module's actorKey gave ${typeof key === 'string' ? 'a blank string' : String(key)}: return the actor's stable, non-blank id.`,
    );
  return fingerprintString(key);
}

/** `sha256(tenant)`, or `null` for a context without a tenant. */
export function tenantFingerprintOf(context: ActionContext): string | null {
  return context.tenant === null ? null : fingerprintString(context.tenant);
}
