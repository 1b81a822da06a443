import type { VerdictModuleOptions } from '../verdict-module-options.interface.js';

/**
 * A behaviour change of a release that can silently refuse what used to work, as it applies to this
 * application's options: the option to set, and why (docs/upgrading.md). Warned at boot and reported by
 * `verdict validate` (finding `behaviour-change`) until the option is set (ADR 0049).
 */
export interface BehaviourChange {
  /** The option whose absence keeps the new behaviour, e.g. `approvalEndpoint.requester`. */
  readonly option: string;
  /** The ADR that decided the change, e.g. `0015`. */
  readonly adr: string;
  /** What now happens, and what to set. */
  readonly message: string;
}

/**
 * The behaviour changes that apply to `options`, in a stable order; empty when every relevant option is set.
 *
 * @example behaviourChanges({ abilityFactory, approvalEndpoint: { approver, canAccessToolCall } })
 * // [{ option: 'approvalEndpoint.requester', adr: '0015', message: '…' }]
 */
export function behaviourChanges(options: Pick<VerdictModuleOptions, 'approvalEndpoint'>): readonly BehaviourChange[] {
  const changes: BehaviourChange[] = [];
  const endpoint = options.approvalEndpoint;
  if (endpoint !== undefined && endpoint.requester === undefined)
    changes.push({
      option: 'approvalEndpoint.requester',
      adr: '0015',
      message:
        'approvalEndpoint has no `requester` hook, so an approver approves only tool calls they proposed themselves: ' +
        "staff approving a customer's call get 409. Set `approvalEndpoint.requester` to the action context the call " +
        'was proposed in (and check it in the fourth parameter of canAccessToolCall), or ' +
        '`requester: (approver) => approver.context` to keep self-approval (docs/upgrading.md, ADR 0015).',
    });
  return changes;
}
