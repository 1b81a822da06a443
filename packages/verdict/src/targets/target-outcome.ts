import { Decision } from '../decisions/decision.js';
import type { EvidenceTrail } from '../evidence/evidence-trail.js';
import { TargetNotResolvable } from '../errors/target-not-resolvable.error.js';
import { isThenable } from '../shared/is-thenable.js';

/** A target a resolver or a refresh answered, wrapped so that no target is ever read as a decision. */
export interface FoundTarget {
  readonly target: unknown;
}

/** A target hook's answer: the target, or the recorded `deny` its `TargetNotResolvable` became. */
export type TargetOutcome = FoundTarget | Decision;

/**
 * Calls a target hook (the resolver at step 2, the refresh at step 7). `TargetNotResolvable` becomes the `deny`
 * `refused` names, recorded on the trail; any other exception is an application fault: it propagates, never a
 * decision. A hook that answers synchronously is answered without a promise (ADR 0053).
 */
export function targetOf(
  hook: () => unknown,
  trail: EvidenceTrail,
  refused: (error: TargetNotResolvable) => Decision,
): TargetOutcome | Promise<TargetOutcome> {
  let found: unknown;
  try {
    found = hook();
  } catch (error) {
    return refusal(error, trail, refused);
  }
  return isThenable(found) ? settled(found, trail, refused) : { target: found };
}

async function settled(
  found: PromiseLike<unknown>,
  trail: EvidenceTrail,
  refused: (error: TargetNotResolvable) => Decision,
): Promise<TargetOutcome> {
  try {
    return { target: await found };
  } catch (error) {
    return refusal(error, trail, refused);
  }
}

function refusal(error: unknown, trail: EvidenceTrail, refused: (error: TargetNotResolvable) => Decision): Decision {
  if (!(error instanceof TargetNotResolvable)) throw error;
  const decision = refused(error);
  trail.record(decision);
  return decision;
}
