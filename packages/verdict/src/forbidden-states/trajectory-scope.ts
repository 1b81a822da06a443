import type { ActionContext } from '../context/action-context.js';
import type { ActorKey } from '../context/actor-key.js';
import type { JsonValue } from '../fingerprints/json-value.js';
import { conversationIdOf } from '../context/conversation-id.js';
import { isMissingKey } from '../shared/is-missing-key.js';

/** The kinds of trajectory scope; a state model's folded state lives as long as its scope. */
export const TrajectoryScopeKind = {
  Conversation: 'conversation',
  Actor: 'actor',
  Tenant: 'tenant',
  Key: 'key',
} as const;

/** A trajectory scope kind. */
export type TrajectoryScopeKind = (typeof TrajectoryScopeKind)[keyof typeof TrajectoryScopeKind];

/**
 * Which calls share one folded state of a forbidden-states model (docs/evaluation.md, ADR 0012). Built from
 * trusted data only: the server's action context and the execution target, never the model's arguments.
 * Choose the scope by how long the modelled effects last: an effect that persists beyond a chat (a file,
 * an export, a share, a stored message) needs a scope that outlives the chat (`actor`, `tenant` or a key),
 * or an attacker splits the trajectory across two conversations. Every capability that shares a model must
 * pass the same scope object (checked at boot).
 */
export interface TrajectoryScope<TTarget = any> {
  readonly kind: TrajectoryScopeKind;
  /** `conversation`, `actor`, `tenant`, or `key:<name>` for an application key. */
  readonly id: string;
  /**
   * The trajectory key of one call: the same key, the same folded state. `null` when the call has none (a wiring
   * fault). `moduleActorKey` is the module's `actorKey` option, which `TrajectoryScope.actor()` without a key uses.
   */
  readonly keyOf: (context: ActionContext, target: TTarget, moduleActorKey?: ActorKey) => JsonValue;
  /** `true` for `TrajectoryScope.actor()` without a key: it needs the module's `actorKey` (checked at boot). */
  readonly usesModuleActorKey: boolean;
}

/** The scopes the factories built: a look-alike object is not a scope. */
const built = new WeakSet<object>();

function scope<TTarget>(
  kind: TrajectoryScopeKind,
  id: string,
  keyOf: TrajectoryScope<TTarget>['keyOf'],
  usesModuleActorKey = false,
): TrajectoryScope<TTarget> {
  const made = Object.freeze({ kind, id, keyOf, usesModuleActorKey });
  built.add(made);
  return made;
}

/**
 * The trajectory scopes: pass one to `forbidStates(model, effectOf, { scope })`.
 *
 * @example
 * forbidStates(exfiltration, effectOf, { scope: TrajectoryScope.actor((actor: User) => actor.id) })
 */
export const TrajectoryScope = {
  /**
   * One chat thread: `{ tenant, conversation: context.metadata.conversationId }`, which the application sets in
   * `resolveContext` (a non-empty string or a finite number). Fits effects that end with the chat (a draft, a
   * quote shown once). A call whose context has no conversation id is a wiring fault (`MissingTrajectoryError`),
   * and so is a malformed one (`VerdictConfigurationError`).
   */
  conversation(): TrajectoryScope {
    return scope(TrajectoryScopeKind.Conversation, TrajectoryScopeKind.Conversation, (context) => {
      const conversation = conversationIdOf(context);
      if (conversation === null) return null;
      return { tenant: context.tenant, conversation };
    });
  },

  /**
   * Every call of one actor within one tenant, across all their conversations: `{ tenant, actor: actorKey(actor) }`.
   * Fits effects that persist and belong to the actor (their exports, their uploads). `actorKey` picks the
   * actor's stable id (a whole actor object would change with every session or role change, and start a fresh
   * trajectory each time). Without one, the module's `actorKey` option is used, and a module without it does not
   * boot. A key of `null`, `undefined` or a blank string (empty or only whitespace) is a `MissingTrajectoryError`.
   */
  actor<TActor = any>(actorKey?: ActorKey<TActor>): TrajectoryScope {
    return scope(
      TrajectoryScopeKind.Actor,
      TrajectoryScopeKind.Actor,
      (context, _target, moduleActorKey) => {
        const key = actorKey ?? moduleActorKey;
        const actor = key === undefined ? null : key(context.actor as TActor);
        return isMissingKey(actor) ? null : { tenant: context.tenant, actor };
      },
      actorKey === undefined,
    );
  },

  /**
   * Every call in one tenant, whoever makes it: `{ tenant }`. Fits shared resources (a tenant-wide share, a team
   * folder). A context without a tenant has no tenant trajectory (`MissingTrajectoryError`); an application
   * without tenants that wants one global state says so with `key('global', () => 'global')`.
   */
  tenant(): TrajectoryScope {
    return scope(TrajectoryScopeKind.Tenant, TrajectoryScopeKind.Tenant, (context) =>
      isMissingKey(context.tenant) ? null : { tenant: context.tenant },
    );
  },

  /**
   * An application key built from trusted data: the action context and the execution target (never the
   * arguments, which the model chose — and a target the model picked by id is the model's choice too: key on
   * what the target is, such as its owner or case file, not on which one was asked for). `name` tells keys
   * apart in the trajectory fingerprint. A key of `null`, `undefined` or a blank string (empty or only whitespace) is a
   * `MissingTrajectoryError`.
   *
   * @example TrajectoryScope.key('case-file', (context, target: Document) => ({ tenant: context.tenant, caseFile: target.caseFileId }))
   */
  key<TTarget = any>(
    name: string,
    keyOf: (context: ActionContext, target: TTarget) => JsonValue,
  ): TrajectoryScope<TTarget> {
    return scope(TrajectoryScopeKind.Key, `key:${name}`, keyOf);
  },
} as const;

/** Whether `value` was built by one of the {@link TrajectoryScope} factories (a look-alike object is not). */
export function isTrajectoryScope(value: unknown): value is TrajectoryScope {
  return typeof value === 'object' && value !== null && built.has(value);
}
