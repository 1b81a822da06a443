import { BadRequestException } from '@nestjs/common';
import type { ActionContext } from '@verdict/nestjs';
import { storefrontContext } from '@verdict/storefront';
import { z } from 'zod';
import type { LabActor, LabApprover } from '../runs/lab-run.js';

/** The lab's single conversation per browser session: receipts and trajectories are bound to it. */
export const LAB_CONVERSATION = 'lab-conversation';

/** The seeded customers and tenants the actor picker offers (any pairing: 72 at globex belongs nowhere). */
export const LAB_ACTORS = [
  { customerId: 72, tenant: 'acme', label: 'Customer 72 at acme (owns 1002, 1004)' },
  { customerId: 91, tenant: 'acme', label: 'Customer 91 at acme (owns 1001)' },
  { customerId: 73, tenant: 'globex', label: 'Customer 73 at globex (owns 1003)' },
  { customerId: 72, tenant: 'globex', label: 'Customer 72 claiming globex' },
] as const;

/**
 * Who can sign in to the approval inbox. The lab has no login: the inbox sends the chosen approver in the
 * `x-lab-approver` header, which stands in for the application's auth guard. The storefront's CASL rules
 * let a customer approve only confirmations of their own orders, in their own tenant.
 */
export const LAB_APPROVERS: readonly LabApprover[] = [
  { id: 'customer:72', label: 'Customer 72 at acme (signed in on their phone)', customerId: 72, tenant: 'acme' },
  { id: 'customer:91', label: 'Customer 91 at acme (another customer)', customerId: 91, tenant: 'acme' },
  { id: 'customer:73', label: 'Customer 73 at globex (another tenant)', customerId: 73, tenant: 'globex' },
];

/** The approver the inbox request names, or `null` (→ 401). */
export function labApprover(header: unknown): (LabApprover & { context: ActionContext }) | null {
  const approver = LAB_APPROVERS.find((candidate) => candidate.id === header);
  return approver === undefined
    ? null
    : { ...approver, context: storefrontContext(approver.customerId, approver.tenant) };
}

/** A lab request body's actor: a seeded customer id and a tenant; anything else is a 400 that changes nothing. */
export const labActorSchema = z.object({
  customerId: z.union([z.literal(72), z.literal(91), z.literal(73)]),
  tenant: z.enum(['acme', 'globex']),
});

/** Parses `body` with `schema`, answering 400 with the problems on bad input. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success)
    throw new BadRequestException(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  return parsed.data;
}

/** The server-built action context of an actor, in the session's conversation. */
export function labContext(actor: LabActor): ActionContext {
  return storefrontContext(actor.customerId, actor.tenant, LAB_CONVERSATION);
}
