import { Logger } from '@nestjs/common';
import type { ActionContext } from '../context/action-context.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { type ActorKey, actorFingerprint } from '../context/actor-key.js';

/**
 * The `actorFingerprint` the pipeline records for a context. An actor whose key names nobody or is not plain JSON
 * is recorded as `null` (warned once per pipeline): attribution is evidence, not a gate, and the actor's own
 * ability still decides. An exception thrown by the key function itself is an application fault and propagates.
 */
export class ActorAttribution {
  private warned = false;

  constructor(private readonly actorKey: ActorKey | undefined) {}

  of(context: ActionContext): string | null {
    try {
      return actorFingerprint(context, this.actorKey);
    } catch (error) {
      if (!(error instanceof NonCanonicalValueError || error instanceof VerdictConfigurationError)) throw error;
      this.warnOnce(error);
      return null;
    }
  }

  private warnOnce(error: Error): void {
    if (this.warned) return;
    this.warned = true;
    new Logger('Verdict').warn(
      `Decision records are not attributed to their actor (actorFingerprint: null): ${error.message} Set actorKey: (actor) => actor.id in VerdictModule.forRoot.`,
    );
  }
}
