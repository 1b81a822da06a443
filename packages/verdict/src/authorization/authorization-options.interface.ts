import type { AbilityFactory } from './ability-factory.interface.js';

/** What authorization reads of the module options. */
export interface AuthorizationOptions {
  /** Returns the actor's CASL ability for an action context. Required. */
  readonly abilityFactory: AbilityFactory;
}

/** Injects the module's {@link AuthorizationOptions} (provided by the core module). */
export const AUTHORIZATION_OPTIONS = Symbol('VerdictAuthorizationOptions');
