import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import type { BehaviourChangeOptions } from './behaviour-change-options.interface.js';

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

/** How many capability names a message lists before "and N more". */
const NAMED = 3;

/**
 * The behaviour changes that apply to `options` and the registered `capabilities`, in a stable order; empty when
 * every relevant option is set.
 *
 * @example behaviourChanges({ abilityFactory, approvalEndpoint: { approver, canAccessToolCall } }, registry.all())
 * // [{ option: 'approvalEndpoint.requester', adr: '0015', message: '…' }]
 */
export function behaviourChanges(
  options: BehaviourChangeOptions,
  capabilities: readonly CapabilityDefinition[] = [],
): readonly BehaviourChange[] {
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
  const ruled = capabilities.filter(hasArgumentRules).map((definition) => `"${definition.name}"`);
  if (ruled.length === 0) return changes;
  const named =
    ruled.length > NAMED ? `${ruled.slice(0, NAMED).join(', ')} and ${ruled.length - NAMED} more` : ruled.join(', ');
  if (options.provenance?.unobserved === undefined)
    changes.push({
      option: 'provenance.unobserved',
      adr: '0039',
      message:
        `Capabilities ${named} have argument provenance rules, which now apply to a call no provenance tracker ` +
        'observed as if its arguments were influenced: trusted_only and deny refuse, require_confirmation asks. ' +
        'Give every agent that proposes them a tracker (`trackers.forAgent().middleware()` before the guard), ' +
        "then set `provenance.unobserved: 'influenced'` (docs/upgrading.md, ADR 0039).",
    });
  if (options.provenance?.unlabelledHistory === undefined)
    changes.push({
      option: 'provenance.unlabelledHistory',
      adr: '0041',
      message:
        `Capabilities ${named} have argument provenance rules, and a human message of the history that the module ` +
        'never labelled (restored by another process, or forgotten) is now untrusted: a value the user typed in an ' +
        'earlier turn no longer passes them. Release earlier turns with `guard.contextMessage` or label them with ' +
        "`tracker.label`, then set `provenance.unlabelledHistory: 'untrusted'` (docs/upgrading.md, ADR 0041).",
    });
  return changes;
}

function hasArgumentRules(definition: CapabilityDefinition): boolean {
  const policy = definition.provenance;
  return Object.keys(policy?.arguments ?? {}).length > 0 || (policy?.destinations?.length ?? 0) > 0;
}
