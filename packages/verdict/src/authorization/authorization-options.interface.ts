import type { AbilityFactory } from './ability-factory.interface.js';

/** What authorization reads of the module options. */
export interface AuthorizationOptions {
  /** Returns the actor's CASL ability for an action context. Required. */
  readonly abilityFactory: AbilityFactory;
}
