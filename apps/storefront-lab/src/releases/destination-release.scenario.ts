import { Injectable } from '@nestjs/common';
import {
  ContextReleaseService,
  DataClass,
  Destination,
  type JsonObject,
  type ReleaseRecord,
  Trust,
} from '@verdict/nestjs';
import { ReleaseRecordEntity } from '@verdict/nestjs/typeorm';
import { Customer, Order } from '@verdict/storefront';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { LabOutcome } from '../comparison/lab-outcome.js';
import type { LabActor, ReleaseView } from '../runs/lab-run.js';
import { CUSTOMER_PROFILE, LOCAL_MODEL } from './lab-release-policies.js';

/** The same connection name as {@link LOCAL_MODEL}, in a remote trust zone: no route is registered to it. */
export const REMOTE_MODEL = Destination.connection('ollama', 'remote-endpoint');

/** What the lab asks to release of the profile: orders' totals are left out, the e-mail is redacted. */
export const PROFILE_ALLOWLIST = ['display_name', 'email', 'orders.*.status', 'orders.*.id'] as const;
export const PROFILE_REDACTIONS = ['email'] as const;

/**
 * The destination-bound release lab: the signed-in customer's profile projection (display name, e-mail,
 * orders' ids and statuses) released to `ollama@local-machine` is permitted with the e-mail redacted; the
 * same request to `ollama@remote-endpoint` is denied with an empty payload, because a provider name is not
 * a trust boundary and only the local route is registered.
 *
 * The storefront has no e-mail column: the profile carries a synthetic address derived from the customer
 * and tenant (`customer72@acme.example`, a reserved domain) so that there is an e-mail to redact.
 */
@Injectable()
export class DestinationReleaseScenario {
  constructor(
    private readonly dataSource: DataSource,
    private readonly releases: ContextReleaseService,
  ) {}

  async run(actor: LabActor): Promise<{ actor: LabActor; source: string; only: string[]; releases: ReleaseView[] }> {
    const profile = await this.profile(actor);
    // One partial builder, finished twice: it is immutable, so both releases ask for exactly the same thing.
    const request = this.releases
      .release(profile)
      .source(CUSTOMER_PROFILE)
      .trust(Trust.Trusted)
      .classify(DataClass.Pii)
      .only([...PROFILE_ALLOWLIST])
      .redact([...PROFILE_REDACTIONS])
      .correlate(`release-lab-${randomUUID()}`);
    const releases: ReleaseView[] = [];
    for (const destination of [LOCAL_MODEL, REMOTE_MODEL]) {
      const result = await request.to(destination);
      const record = await this.dataSource.getRepository(ReleaseRecordEntity).findOneByOrFail({ id: result.recordId });
      releases.push({
        destination: destination.toString(),
        outcome: result.permitted ? LabOutcome.Permitted : LabOutcome.Denied,
        before: profile,
        payload: result.payload,
        reason: result.reason,
        redactedPaths: result.permitted ? [...PROFILE_REDACTIONS] : [],
        evidence: { ...(record satisfies ReleaseRecord) },
      });
    }
    return { actor, source: CUSTOMER_PROFILE.toString(), only: [...PROFILE_ALLOWLIST], releases };
  }

  /** The customer's profile as the application holds it, read with a query scoped to customer and tenant. */
  private async profile({ customerId, tenant }: LabActor): Promise<JsonObject> {
    const customer = await this.dataSource.getRepository(Customer).findOneBy({ id: customerId, tenantId: tenant });
    const orders = await this.dataSource
      .getRepository(Order)
      .find({ where: { customerId, tenantId: tenant }, order: { id: 'ASC' } });
    return {
      display_name: customer?.displayName ?? '(no such customer in this tenant)',
      email: `customer${customerId}@${tenant}.example`,
      orders: orders.map((order) => ({ id: order.id, status: order.status, total: order.total })),
    };
  }
}
