import type { ActionContext } from '../context/action-context.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import type { JsonValue } from '../fingerprints/json-value.js';
import { isMissingKey } from '../shared/is-missing-key.js';

/** Picks the part of an actor that names them stably (`(actor) => actor.id`); the default is the actor itself. */
export type EvidenceActorKey = (actor: any) => JsonValue;

/**
 * The `actorFingerprint` evidence records carry: `sha256(JCS({actor: actorKey(actor), tenant}))`. With the
 * default key (the actor itself) it equals an approval receipt's principal fingerprint. Compute it to filter
 * `EvidenceQuery.list` or `verdict evidence list --actor` by one actor. A pseudonym, not anonymization: anyone
 * who can guess the key can compute it. Strict: a key that names nobody (`null`, `undefined`, `''`) is a
 * `VerdictConfigurationError`, one that is not plain JSON a `NonCanonicalValueError` naming the path (the pipeline
 * records such an actor as `null` instead, see `evidenceActorKey`).
 *
 * @example
 * actorFingerprint({ actor: { id: 'customer:72' }, tenant: 'acme' }, (actor) => actor.id)
 * // sha256(JCS({ actor: 'customer:72', tenant: 'acme' }))
 */
export function actorFingerprint(
  context: Pick<ActionContext, 'actor' | 'tenant'>,
  actorKey: EvidenceActorKey = (actor) => actor as JsonValue,
): string {
  const actor = actorKey(context.actor);
  if (isMissingKey(actor))
    throw new VerdictConfigurationError(
      `The evidence actor key gave ${actor === '' ? "''" : String(actor)}: set VerdictModule.forRoot({ evidenceActorKey: (actor) => actor.id }) to name the actor by a stable id.`,
    );
  return fingerprint({ actor, tenant: context.tenant });
}
