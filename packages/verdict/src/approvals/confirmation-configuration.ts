import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { isWindowSeconds } from '../rate-limits/fixed-window.js';
import { isName } from '../shared/is-name.js';
import { isPositiveInteger } from '../shared/is-positive-integer.js';
import { notAStore } from '../shared/not-a-store.js';
import { APPROVAL_RECEIPT_STORE_METHODS } from './approval-receipt-store.interface.js';
import type { ApprovalOptions } from './approval-options.interface.js';

/** The optional callbacks of a `requiresConfirmation` policy, each with how it is written. */
const CALLBACKS = {
  actorKey: 'actorKey: (actor) => actor.id',
  describe: 'describe: (envelope, target) => `…`',
  subject: 'subject: (envelope, target) => ({ … })',
} as const;

/**
 * Boot-time checks of a capability's `requiresConfirmation`: a `bind` and a `reason`; a `ttlSeconds` from 1 to
 * `MAX_WINDOW_SECONDS` (100 years: a longer one would expire past what every engine stores as a time, or never);
 * a positive integer `maxPending`; `actorKey`, `describe` and `subject`, when given, functions (else every proposal
 * would fail once its evidence is written); and a receipt store (`approvalStoreProblem`). `fail` throws the
 * capability's configuration error.
 */
export function assertConfirmationConfigured(
  definition: CapabilityDefinition,
  options: Pick<ApprovalOptions, 'approvals'>,
  fail: (message: string) => never,
): void {
  const policy = definition.requiresConfirmation;
  if (policy === undefined) return;
  if (typeof policy.bind !== 'function' || !isName(policy.reason))
    fail('has requiresConfirmation without bind or reason: use requiresConfirmation({ bind, reason, ttlSeconds }).');
  if (policy.ttlSeconds !== undefined && !isWindowSeconds(policy.ttlSeconds))
    fail('has a requiresConfirmation ttlSeconds that is not a positive integer of at most 3,155,760,000 (100 years).');
  if (policy.maxPending !== undefined && !isPositiveInteger(policy.maxPending))
    fail('has a requiresConfirmation maxPending that is not a positive integer.');
  for (const [name, example] of Object.entries(CALLBACKS)) {
    const callback: unknown = policy[name as keyof typeof CALLBACKS];
    if (callback !== undefined && typeof callback !== 'function')
      fail(`has a requiresConfirmation ${name} that is not a function: use ${example}.`);
  }
  const problem = approvalStoreProblem(options);
  if (problem !== null) fail(`uses requiresConfirmation, but ${problem}`);
}

/**
 * Why the module's `approvals` cannot hold the receipts a capability asks for: none is configured, or it is no
 * approval receipt store (`null`, a `{}`: it lacks a method Verdict calls); `null` when it is one.
 */
export function approvalStoreProblem(options: Pick<ApprovalOptions, 'approvals'>): string | null {
  if (options.approvals === undefined)
    return 'no approval receipt store is configured: pass `approvals` to VerdictModule.forRoot (TypeOrmApprovalReceiptStore).';
  const notStore = notAStore(options.approvals, 'approvals', 'ApprovalReceiptStore', APPROVAL_RECEIPT_STORE_METHODS);
  return notStore === null ? null : `${notStore}: pass a TypeOrmApprovalReceiptStore to VerdictModule.forRoot.`;
}
