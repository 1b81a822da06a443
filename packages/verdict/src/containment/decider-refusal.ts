import type { ActionContext } from '../context/action-context.js';
import type { AbilityFactory } from '../authorization/ability-factory.interface.js';
import type { DecisionContainment } from './decision-containment.js';

/** Why a human may not decide (or read for deciding) a parked call: no CASL permission, or a kill switch on them. */
export type DeciderRefusal = 'forbidden' | 'contained';

/**
 * What approvers and reviewers are checked against before they decide a parked call or read its untrusted
 * text (ADR 0042): the decider's CASL ability to `action` the `target` built from trusted stored data, then
 * no kill switch engaged for the decider's actor. `null`: allowed.
 *
 * @example
 * const refusal = await deciderRefusal(approver.context, 'approve', subject('Approval', facts), { abilityFactory, containment });
 */
export async function deciderRefusal(
  decider: ActionContext,
  action: string,
  target: unknown,
  wiring: { readonly abilityFactory: AbilityFactory; readonly containment: DecisionContainment },
): Promise<DeciderRefusal | null> {
  const ability = await wiring.abilityFactory.createForContext(decider);
  if (!ability.can(action, target as never)) return 'forbidden';
  if (await wiring.containment.isDeciderContained(decider)) return 'contained';
  return null;
}
