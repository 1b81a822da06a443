import type { ActionContext } from '../context/action-context.js';
import type { ActorKey } from '../context/actor-key.js';
import type { JsonValue } from '../fingerprints/json-value.js';
import { TrajectoryScope } from '../forbidden-states/trajectory-scope.js';
import { BudgetScope } from './spend-budget.js';

/** The scopes' keys are the trajectory scopes' (`{ tenant, actor }`, `{ tenant }`, `{ tenant, conversation }`). */
const SCOPES = {
  [BudgetScope.Actor]: TrajectoryScope.actor(),
  [BudgetScope.Tenant]: TrajectoryScope.tenant(),
  [BudgetScope.Conversation]: TrajectoryScope.conversation(),
} as const;

/**
 * The binding of a budget scope in an action context — `{ tenant, actor: actorKey(actor) }`, `{ tenant }` or
 * `{ tenant, conversation }` — built from the server's context only; `null` when the context has no such key.
 */
export function budgetScopeKeyOf(per: BudgetScope, context: ActionContext, actorKey?: ActorKey): JsonValue | null {
  return SCOPES[per].keyOf(context, undefined, actorKey) ?? null;
}
