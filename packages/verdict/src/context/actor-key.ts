import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { canonicalJson } from '../fingerprints/canonical-json.js';
import { identityFingerprint } from '../fingerprints/identity-fingerprint.js';
import type { JsonValue } from '../fingerprints/json-value.js';
import { isMissingKey } from '../shared/is-missing-key.js';
import { assertOptionalFunction } from '../shared/optional-function.js';
import type { ActionContext } from './action-context.js';

/**
 * The actor's stable key (module option `actorKey`, or a capability's own): what receipts, review items and
 * actor trajectories bind, what an operator types to contain an actor (`verdict contain actor customer:72`),
 * and what security events fingerprint. An opaque application id, never PII.
 *
 * @example actorKey: (actor: User) => `customer:${actor.id}`
 */
export type ActorKey<TActor = any> = (actor: TActor) => JsonValue;

/** The module's key bound to its options, per options object (`moduleActorKey`). */
const BOUND_MODULE_KEYS = new WeakMap<object, { readonly actorKey: ActorKey; readonly bound: ActorKey }>();

/**
 * The module's `actorKey`, called as a method of the options it was given with (an `actorKey(actor) { return this… }`
 * reads them), or `undefined` when none is configured. Every part of Verdict that calls the module's key takes it so,
 * the pipeline first, when the module is built.
 *
 * @throws VerdictConfigurationError when `actorKey` is given but is not a function (`null` included: it would make the
 *   whole actor object the key, so one person in two sessions would be two).
 */
export function moduleActorKey(options: { readonly actorKey?: ActorKey }): ActorKey | undefined {
  assertOptionalFunction(options.actorKey, 'actorKey', 'actorKey: (actor) => actor.id');
  const { actorKey } = options;
  if (actorKey === undefined) return undefined;
  // One bound key per options and key, so every capability confirmed with the module's key holds the same function
  // (the receipt checks ask each distinct key once).
  const held = BOUND_MODULE_KEYS.get(options);
  if (held?.actorKey === actorKey) return held.bound;
  const bound = actorKey.bind(options);
  BOUND_MODULE_KEYS.set(options, { actorKey, bound });
  return bound;
}

/** The key of an actor when no {@link ActorKey} is configured: the actor itself (it must be plain JSON). */
export function defaultActorKey(actor: unknown): JsonValue {
  return actor as JsonValue;
}

/**
 * The key as an operator types it: a string key as it is, any other key as its RFC 8785 canonical JSON.
 *
 * @throws VerdictConfigurationError when the key is missing: `null`, `undefined`, or a blank string (empty or only
 * whitespace; the rule of `isMissingKey`), since it would make actors one.
 * @throws NonCanonicalValueError when the key is not plain JSON: set `actorKey`.
 */
export function actorKeyText(key: unknown): string {
  if (isMissingKey(key))
    throw new VerdictConfigurationError(
      `The actorKey gave ${typeof key === 'string' ? 'a blank string' : String(key)}: return the actor's stable, non-blank id.`,
    );
  return typeof key === 'string' ? key : canonicalJson(key);
}

/**
 * `sha256(actorKeyText(actorKey(context.actor)))`.
 *
 * @throws VerdictConfigurationError when the key is blank or missing (it would make actors one).
 * @throws NonCanonicalValueError when the key is not plain JSON: set `actorKey`.
 */
export function actorFingerprint(context: ActionContext, actorKey: ActorKey = defaultActorKey): string {
  return identityFingerprint(actorKeyText(actorKey(context.actor)));
}

/** `sha256(tenant)`, or `null` for a context without a tenant. */
export function tenantFingerprintOf(context: ActionContext): string | null {
  return context.tenant === null ? null : identityFingerprint(context.tenant);
}

/**
 * Whose per-principal state is (a quarantine handle, a plan): `JSON.stringify([actor fingerprint, tenant
 * fingerprint])`. Two actors, or one actor in two tenants, never share a key.
 *
 * @throws VerdictConfigurationError or NonCanonicalValueError when the actor has no stable key (as
 *   {@link actorFingerprint}): a shared fallback would make such actors one.
 */
export function principalKeyOf(context: ActionContext, actorKey: ActorKey = defaultActorKey): string {
  return JSON.stringify([actorFingerprint(context, actorKey), tenantFingerprintOf(context)]);
}

/** Why an actor has no stable key: Verdict's own check of its key's answer refused it (`actorKeyText`). */
export type NoStableKeyError = VerdictConfigurationError | NonCanonicalValueError;

/** What {@link checkedActorKey} made of an actor's key: `use`'s result, or why the actor has no stable key. */
export type CheckedActorKey<T> =
  | { readonly stable: true; readonly value: T }
  | { readonly stable: false; readonly key: unknown; readonly error: NoStableKeyError };

/**
 * Asks `actorKey` for `actor` once, outside any catch, then hands the key to `use`: Verdict's own checks of the answer
 * (`actorKeyText`, `principalKeyOf`, `receiptPrincipal`), which must throw those two classes for nothing but the key.
 * The actor has no stable key (`stable: false`) only when they refuse it: `VerdictConfigurationError` for `null`,
 * `undefined` or a blank string, `NonCanonicalValueError` for a key that is not plain JSON. The line is who threw, not
 * what was thrown (ADR 0204, ADR 0208): every part of Verdict that takes such an actor as keyless (provenance labels,
 * decision records, the pending-receipt cap of a tool call) decides it here.
 *
 * @throws whatever `actorKey` throws itself — a `TypeError` on a missing property, a failed lookup, a Verdict error
 *   class too: an application fault, thrown as it is. Whatever else `use` throws.
 */
export function checkedActorKey<T>(actor: unknown, actorKey: ActorKey, use: (key: JsonValue) => T): CheckedActorKey<T> {
  // Outside the catch: what the application's key function throws is its own fault.
  const key = actorKey(actor);
  try {
    return { stable: true, value: use(key) };
  } catch (error) {
    if (error instanceof VerdictConfigurationError || error instanceof NonCanonicalValueError)
      return { stable: false, key, error };
    throw error;
  }
}

/**
 * The actor's fingerprint as an event attributes it ({@link actorFingerprint}), or `null` for an actor without a
 * stable key: Verdict's own check of the key's answer decides that ({@link checkedActorKey}, ADR 0208).
 *
 * @throws whatever `actorKey` throws itself: an application fault, never an event attributed to no one.
 */
export function attributedActorFingerprint(
  context: ActionContext,
  actorKey: ActorKey = defaultActorKey,
): string | null {
  const checked = checkedActorKey(context.actor, actorKey, (key) => identityFingerprint(actorKeyText(key)));
  return checked.stable ? checked.value : null;
}
