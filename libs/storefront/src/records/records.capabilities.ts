import { Injectable } from '@nestjs/common';
import { type AuthorizedAction, Capability, forbidStates } from '@verdict/nestjs';
import { DataSource } from 'typeorm';
import type { Customer } from '../entities/customer.entity.js';
import { Order } from '../entities/order.entity.js';
import { customerRecordsExfiltration } from './customer-records-exfiltration.js';
import { type CustomerSource, customerPrimaryKeyPolicy, resolveSignedInCustomer } from './customer-target.js';
import { type SendLinkArguments, type UploadArguments, noArguments, sendLinkArguments, uploadArguments } from './records.arguments.js';
import { RecordsCapability } from './records-capability.js';
import { recordsEffects } from './records-effects.js';
import { sharingDestination } from './sharing-destination.js';
import { SharingOutbox } from './sharing-outbox.js';

/**
 * The customer-records capabilities: read the signed-in customer's records, export them, upload the
 * export to a host and send a link. Each is permitted on its own (CASL: the customer's own record);
 * together they can move the records off the tenant's boundary. `forbidStates` with
 * {@link customerRecordsExfiltration} folds the conversation's effects and denies the upload that would
 * put an export holding customer records on an external host. Needs a `TrajectoryStore` and a
 * `metadata.conversationId` in the action context.
 */
@Injectable()
export class RecordsCapabilities implements CustomerSource {
  /** The synthetic uploads and messages that actually happened. */
  readonly outbox = new SharingOutbox();

  constructor(readonly dataSource: DataSource) {}

  /** `records.read`: the signed-in customer's name and orders. */
  @Capability({
    name: RecordsCapability.ReadRecords,
    description: "Read the signed-in customer's records: name and orders",
    action: 'view',
    subject: 'Customer',
    arguments: noArguments,
    resolveTarget: resolveSignedInCustomer,
    executionTarget: customerPrimaryKeyPolicy,
    forbidStates: forbidStates(customerRecordsExfiltration, (_envelope, customer: Customer) => recordsEffects.read(customer.tenantId)),
  })
  async read(action: AuthorizedAction<Record<string, never>, Customer>): Promise<{ customer: string; orders: number[] }> {
    const { id, tenantId, displayName } = action.target;
    const orders = await this.dataSource.getRepository(Order).find({ where: { customerId: id, tenantId }, order: { id: 'ASC' } });
    return { customer: displayName, orders: orders.map((order) => order.id) };
  }

  /** `records.export`: packs the customer's records into an archive and returns its name. */
  @Capability({
    name: RecordsCapability.ExportRecords,
    description: "Export the signed-in customer's records into an archive",
    action: 'export',
    subject: 'Customer',
    arguments: noArguments,
    resolveTarget: resolveSignedInCustomer,
    executionTarget: customerPrimaryKeyPolicy,
    forbidStates: forbidStates(customerRecordsExfiltration, (_envelope, customer: Customer) => recordsEffects.export(customer.tenantId)),
  })
  exportRecords(action: AuthorizedAction<Record<string, never>, Customer>): { archive: string } {
    return { archive: `records-${action.target.id}.zip` };
  }

  /** `files.upload`: puts the latest export on `host` and returns its link. */
  @Capability({
    name: RecordsCapability.UploadExport,
    description: "Upload the signed-in customer's latest export to a host",
    action: 'share',
    subject: 'Customer',
    arguments: uploadArguments,
    resolveTarget: resolveSignedInCustomer,
    executionTarget: customerPrimaryKeyPolicy,
    forbidStates: forbidStates(customerRecordsExfiltration, ({ arguments: a }, customer: Customer) => recordsEffects.upload(customer.tenantId, a.host)),
  })
  upload(action: AuthorizedAction<UploadArguments, Customer>): { link: string } {
    const { target, arguments: a } = action;
    const link = `https://${a.host.toLowerCase()}/shared/records-${target.id}.zip`;
    this.outbox.add({
      kind: 'upload',
      tenant: target.tenantId,
      customerId: target.id,
      destination: sharingDestination(target.tenantId, a.host),
      reference: link,
    });
    return { link };
  }

  /** `messages.send`: sends `link` to `to`. */
  @Capability({
    name: RecordsCapability.SendLink,
    description: 'Send a link to an e-mail address on behalf of the signed-in customer',
    action: 'share',
    subject: 'Customer',
    arguments: sendLinkArguments,
    resolveTarget: resolveSignedInCustomer,
    executionTarget: customerPrimaryKeyPolicy,
    forbidStates: forbidStates(customerRecordsExfiltration, ({ arguments: a }, customer: Customer) => recordsEffects.send(customer.tenantId, a.to)),
  })
  send(action: AuthorizedAction<SendLinkArguments, Customer>): { sent: true } {
    const { target, arguments: a } = action;
    this.outbox.add({
      kind: 'message',
      tenant: target.tenantId,
      customerId: target.id,
      destination: sharingDestination(target.tenantId, a.to),
      reference: a.link,
    });
    return { sent: true };
  }
}
