import type { ActionContext } from '../context/action-context.js';
import type { JsonValue } from '../fingerprints/json-value.js';

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
 * Which calls share one folded state of a forbidden-states model (DESIGN.md §11, ADR 0012). Built from
 * trusted data only: the server's action context and the execution target, never the model's arguments.
 * Choose the scope by how long the modelled effects last: an effect that persists beyond a chat (a file,
 * an export, a share, a stored message) needs a scope that outlives the chat (`actor`, `tenant` or a key),
 * or an attacker splits the trajectory across two conversations.
 */
export interface TrajectoryScope<TTarget = any> {
  readonly kind: TrajectoryScopeKind;
  /** `conversation`, `actor`, `tenant`, or `key:<name>` for an application key. */
  readonly id: string;
  /** The trajectory key of one call: the same key, the same folded state. `null` when the call has none (a wiring fault). */
  readonly keyOf: (context: ActionContext, target: TTarget) => JsonValue;
}

function scope<TTarget>(kind: TrajectoryScopeKind, id: string, keyOf: (context: ActionContext, target: TTarget) => JsonValue): TrajectoryScope<TTarget> {
  return Object.freeze({ kind, id, keyOf });
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
   * `resolveContext`. Fits effects that end with the chat (a draft, a quote shown once). A call whose context
   * has no conversation id is a wiring fault (`MissingTrajectoryError`).
   */
  conversation(): TrajectoryScope {
    return scope(TrajectoryScopeKind.Conversation, TrajectoryScopeKind.Conversation, (context) => {
      const conversation = context.metadata?.conversationId;
      if (typeof conversation !== 'string' || conversation === '') return null;
      return { tenant: context.tenant, conversation };
    });
  },

  /**
   * Every call of one actor within one tenant, across all their conversations: `{ tenant, actor: actorKey(actor) }`.
   * Fits effects that persist and belong to the actor (their exports, their uploads). `actorKey` picks the
   * actor's stable id; default: the actor object itself, which must then be plain JSON (`NonCanonicalValueError` otherwise).
   */
  actor<TActor = any>(actorKey: (actor: TActor) => JsonValue = (actor) => actor as JsonValue): TrajectoryScope {
    return scope(TrajectoryScopeKind.Actor, TrajectoryScopeKind.Actor, (context) => ({ tenant: context.tenant, actor: actorKey(context.actor as TActor) }));
  },

  /** Every call in one tenant, whoever makes it: `{ tenant }`. Fits shared resources (a tenant-wide share, a team folder). */
  tenant(): TrajectoryScope {
    return scope(TrajectoryScopeKind.Tenant, TrajectoryScopeKind.Tenant, (context) => ({ tenant: context.tenant }));
  },

  /**
   * An application key built from trusted data: the action context and the execution target (never the
   * arguments, which the model chose). `name` tells keys apart; keep one per state model.
   *
   * @example TrajectoryScope.key('case-file', (context, target: Document) => ({ tenant: context.tenant, caseFile: target.caseFileId }))
   */
  key<TTarget = any>(name: string, keyOf: (context: ActionContext, target: TTarget) => JsonValue): TrajectoryScope<TTarget> {
    return scope(TrajectoryScopeKind.Key, `key:${name}`, keyOf);
  },
} as const;

/** Whether `value` was built by one of the {@link TrajectoryScope} factories. */
export function isTrajectoryScope(value: unknown): value is TrajectoryScope {
  if (typeof value !== 'object' || value === null) return false;
  const { kind, id, keyOf } = value as TrajectoryScope;
  return Object.values(TrajectoryScopeKind).includes(kind) && typeof id === 'string' && typeof keyOf === 'function';
}
