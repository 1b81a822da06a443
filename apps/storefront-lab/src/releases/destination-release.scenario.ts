import { Injectable } from '@nestjs/common';
import {
  ContextReleaseService,
  DataClass,
  Destination,
  type JsonObject,
  type ReleaseRecord,
  type ReleaseResult,
  Trust,
} from '@verdict/nestjs';
import { ReleaseRecordEntity } from '@verdict/nestjs/typeorm';
import { Customer, Order, StorefrontContexts } from '@verdict/storefront';
import { randomUUID } from 'node:crypto';
import { DataSource, In } from 'typeorm';
import { LabOutcome } from '../comparison/lab-outcome.js';
import { CUSTOMER_PROFILE, LOCAL_MODEL } from './lab-release-policies.js';

/** The same connection name as {@link LOCAL_MODEL}, in a remote trust zone: no route is registered to it. */
export const REMOTE_MODEL = Destination.connection('ollama', 'remote-endpoint');

/** What the lab asks to release of the profile: orders' totals are left out, the e-mail is redacted. */
export const PROFILE_ALLOWLIST = ['display_name', 'email', 'orders.*.status', 'orders.*.id'] as const;
export const PROFILE_REDACTIONS = ['email'] as const;

/** One release of the profile to one destination. */
export interface DestinationRelease {
  /** `connection@trustZone`. */
  readonly destination: string;
  readonly outcome: LabOutcome;
  /** Exactly what the application may hand to that connection (`{}` when denied). */
  readonly payload: JsonObject;
  /** Internal: `released` or the denial reason. */
  readonly reason: string;
  /** The stored release record, as read back from `verdict_release_records`: names, fingerprints and counts only. */
  readonly evidence: ReleaseRecord;
}

/**
 * The destination-bound release lab, as customer 72 of acme: their profile projection (display name,
 * e-mail, orders' ids and statuses) released to `ollama@local-machine` is permitted with the e-mail
 * redacted; the same request to `ollama@remote-endpoint` is denied with an empty payload, because a
 * provider name is not a trust boundary and only the local route is registered.
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

  async run(): Promise<{
    actor: { customerId: number; tenant: string };
    source: string;
    only: string[];
    redact: string[];
    releases: DestinationRelease[];
  }> {
    const { actor, tenant } = StorefrontContexts.customer72;
    const profile = await this.profile(actor.customerId, tenant!);
    // One partial builder, finished twice: it is immutable, so both releases ask for exactly the same thing.
    const request = this.releases
      .release(profile)
      .source(CUSTOMER_PROFILE)
      .trust(Trust.Trusted)
      .classify(DataClass.Pii)
      .only([...PROFILE_ALLOWLIST])
      .redact([...PROFILE_REDACTIONS])
      .correlate(`release-lab-${randomUUID()}`);
    const results: Array<[Destination, ReleaseResult]> = [];
    for (const destination of [LOCAL_MODEL, REMOTE_MODEL]) results.push([destination, await request.to(destination)]);
    const records = await this.dataSource
      .getRepository(ReleaseRecordEntity)
      .findBy({ id: In(results.map(([, result]) => result.recordId)) });
    return {
      actor: { customerId: actor.customerId, tenant: tenant! },
      source: CUSTOMER_PROFILE.toString(),
      only: [...PROFILE_ALLOWLIST],
      redact: [...PROFILE_REDACTIONS],
      releases: results.map(([destination, result]) => ({
        destination: destination.toString(),
        outcome: result.permitted ? LabOutcome.Permitted : LabOutcome.Denied,
        payload: result.payload,
        reason: result.reason,
        evidence: recordOf(records, result.recordId),
      })),
    };
  }

  /** The customer's profile as the application holds it, read with a query scoped to customer and tenant. */
  private async profile(customerId: number, tenant: string): Promise<JsonObject> {
    const customer = await this.dataSource
      .getRepository(Customer)
      .findOneByOrFail({ id: customerId, tenantId: tenant });
    const orders = await this.dataSource
      .getRepository(Order)
      .find({ where: { customerId, tenantId: tenant }, order: { id: 'ASC' } });
    return {
      display_name: customer.displayName,
      email: `customer${customer.id}@${tenant}.example`,
      orders: orders.map((order) => ({ id: order.id, status: order.status, total: order.total })),
    };
  }
}

/** The stored record of one release, as a plain object; the recorder writes it before the release answers. */
function recordOf(records: readonly ReleaseRecordEntity[], id: string): ReleaseRecord {
  const record = records.find((candidate) => candidate.id === id);
  if (record === undefined) throw new Error(`Release record ${id} is not in verdict_release_records.`);
  return { ...record };
}
