import type { AnyAbility } from '@casl/ability';
import type { ActionContext } from '../context/action-context.js';

/**
 * Builds the actor's CASL ability for an action context. Called at proposal and again at execution, so
 * an authority change in between is seen. Deny by default: grant only what rules state.
 *
 * @example
 * { createForContext: ({ actor, tenant }) => defineAbilityFor(actor as Customer, tenant) }
 */
export interface AbilityFactory {
  createForContext(context: ActionContext): AnyAbility | Promise<AnyAbility>;
}
