import type { Approver } from '@verdict/nestjs';
import { storefrontContext } from '@verdict/storefront';
import type { LabReviewer } from '../runs/lab-run.js';

/** A staff member's actor: not a customer, so the storefront's own CASL rules give them nothing. */
export interface StaffActor {
  readonly staffId: string;
}

/**
 * Who can sign in to the review queue. As for the approval inbox, the lab has no login: the queue sends the
 * chosen reviewer in the `x-lab-reviewer` header, standing in for the application's staff auth guard.
 */
export const LAB_REVIEWERS: readonly LabReviewer[] = [
  { id: 'staff:ana', label: 'Ana, staff at acme', tenant: 'acme' },
  { id: 'staff:gus', label: 'Gus, staff at globex (another tenant)', tenant: 'globex' },
  { id: 'customer:72', label: 'Customer 72 at acme (the requester)', tenant: 'acme' },
  { id: 'customer:91', label: 'Customer 91 at acme (not staff)', tenant: 'acme' },
];

/** The reviewer the request names, with their server-built action context, or `null` (→ 401). */
export function labReviewer(header: unknown): Approver | null {
  const reviewer = LAB_REVIEWERS.find((candidate) => candidate.id === header);
  if (reviewer === undefined) return null;
  const [kind, id] = reviewer.id.split(':');
  const context =
    kind === 'staff'
      ? { actor: Object.freeze({ staffId: id }) satisfies StaffActor, tenant: reviewer.tenant }
      : storefrontContext(Number(id), reviewer.tenant);
  return { id: reviewer.id, context };
}

/**
 * The review lane's actor key: who a customer or a staff member is, whatever session they come from. The key is
 * the actor's id fields only, the same JSON the lab's actors are made of, so `rehydrate` reads `customerId` back.
 *
 * @example labActorKey({ customerId: 72 }) // { customerId: 72 }
 */
export function labActorKey(actor: unknown): { staffId: string } | { customerId: number } {
  return isStaffActor(actor)
    ? { staffId: actor.staffId }
    : { customerId: (actor as { customerId: number }).customerId };
}

export function isStaffActor(actor: unknown): actor is StaffActor {
  return typeof actor === 'object' && actor !== null && typeof (actor as StaffActor).staffId === 'string';
}
