import type { ExecutionContext } from '@nestjs/common';
import type { JsonValue } from '../fingerprints/json-value.js';
import type { ActionContext } from './action-context.js';
import type { VerdictActor } from './verdict-types.js';

/** What the action context and the actor's identity read of the module options. */
export interface ActionContextOptions {
  /**
   * Builds the action context from an HTTP (or RPC) request for `ActionContextInterceptor`, after guards
   * have authenticated it. Never read the actor or tenant from the request body.
   */
  readonly resolveContext?: (executionContext: ExecutionContext) => ActionContext | Promise<ActionContext>;
  /**
   * The actor's stable identity, used by every capability that does not give its own: receipts
   * (`requiresConfirmation`'s `actorKey`), review items (`requiresReview`'s), actor trajectories
   * (`TrajectoryScope.actor()` without a key), containment (`verdict contain actor <key>` names a string key as
   * it is, any other as its canonical JSON) and the actor fingerprint of evidence and security events.
   * Default: none; the actor object itself is then the key, and `TrajectoryScope.actor()` needs this (boot error).
   * A method signature, so an annotated `(actor: User) => …` fits where no actor type is registered.
   *
   * @example actorKey: (actor: User) => actor.id
   */
  actorKey?(actor: VerdictActor): JsonValue;
}

/** Injects the module's {@link ActionContextOptions} (provided by the core module). */
export const ACTION_CONTEXT_OPTIONS = Symbol('VerdictActionContextOptions');
