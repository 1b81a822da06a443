import { Logger } from '@nestjs/common';
import type { ActionContext } from '../context/action-context.js';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { type ActorKey, actorKeyText, checkedActorKey, defaultActorKey } from '../context/actor-key.js';
import { maskedPath } from '../context-release/release-path.js';
import { assertCanonicalJson } from '../fingerprints/canonical-json.js';
import { identityFingerprint } from '../fingerprints/identity-fingerprint.js';

/**
 * The `actorFingerprint` the pipeline records for a context. An actor whose key names nobody or is not plain JSON
 * is recorded as `null` (warned once per pipeline): attribution is evidence, not a gate, and the actor's own
 * ability still decides. Verdict's own check of the key's answer (`actorKeyText`) decides that: what the key function
 * throws itself is an application fault and propagates, a `VerdictConfigurationError` or `NonCanonicalValueError` of
 * its own too (ADR 0208: who threw, not what was thrown).
 */
export class ActorAttribution {
  private warned = false;

  constructor(private readonly actorKey: ActorKey | undefined) {}

  of(context: ActionContext): string | null {
    // `actorFingerprint`, with the key kept for the warning. The key is asked once, outside any catch: only
    // `actorKeyText`'s refusal of its answer is "no key", never what the key function throws (`checkedActorKey`).
    const checked = checkedActorKey(context.actor, this.actorKey ?? defaultActorKey, (key) =>
      identityFingerprint(actorKeyText(key)),
    );
    if (checked.stable) return checked.value;
    this.warnOnce(checked.error, checked.key);
    return null;
  }

  private warnOnce(error: Error, key: unknown): void {
    if (this.warned) return;
    this.warned = true;
    new Logger('Verdict').warn(
      `Decision records are not attributed to their actor (actorFingerprint: null): ${whatIsWrong(error, key)} Set actorKey: (actor) => actor.id in VerdictModule.forRoot.`,
    );
  }
}

/**
 * What is wrong with the actor's key, as the warning names it. A key that is not plain JSON is named by its problem
 * and where it lies, each object key there as `*` (`maskedPath`, as context release names a payload's): the actor's
 * own keys can be data, and logs keep them.
 */
function whatIsWrong(error: Error, key: unknown): string {
  if (!(error instanceof NonCanonicalValueError)) return error.message;
  try {
    assertCanonicalJson(key, maskedPath);
  } catch (masked) {
    if (masked instanceof NonCanonicalValueError && masked.problem === error.problem) return masked.message;
  }
  // Not found again (a key that changed as it was read): the problem alone.
  return `${error.problem}.`;
}
