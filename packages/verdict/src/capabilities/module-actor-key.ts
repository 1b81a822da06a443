import type { ActionContextOptions } from '../context/action-context-options.interface.js';
import { moduleActorKey } from '../context/actor-key.js';
import type { CapabilityDefinition } from './capability-definition.js';

/**
 * The definition with the module's `actorKey` as its confirmation's actor key, where the confirmation gives none.
 * Applied once, at registration, so issuing, validating and looking up receipts all read the same key.
 * (`TrajectoryScope.actor()` reads the module's key where it keys a call: a scope is shared by identity.)
 */
export function withModuleActorKey(
  definition: CapabilityDefinition,
  options: Pick<ActionContextOptions, 'actorKey'>,
): CapabilityDefinition {
  const confirmation = definition.requiresConfirmation;
  if (confirmation === undefined || confirmation.actorKey !== undefined || options.actorKey === undefined)
    return definition;
  const actorKey = moduleActorKey(options)!;
  return Object.freeze({ ...definition, requiresConfirmation: Object.freeze({ ...confirmation, actorKey }) });
}
