import { Injectable } from '@nestjs/common';
import { type AuthorizedAction, Capability, type EffectOf, type Envelope, forbidStates } from '@verdict/nestjs';
import { DataSource } from 'typeorm';
import type { Customer } from '../entities/customer.entity.js';
import { Order } from '../entities/order.entity.js';
import { RecordsExport } from '../entities/records-export.entity.js';
import { customerRecordsExfiltration } from './customer-records-exfiltration.js';
import { type CustomerSource, customerPrimaryKeyPolicy, resolveSignedInCustomer } from './customer-target.js';
import { exportPrimaryKeyPolicy, resolveLatestExport } from './records-export-target.js';
import { customerRecordsScope } from './records-trajectory-scope.js';
import { oncePerToolCall } from './once-per-tool-call.js';
import {
  type SendLinkArguments,
  type UploadArguments,
  noArguments,
  sendLinkArguments,
  uploadArguments,
} from './records.arguments.js';
import { RecordsCapability } from './records-capability.js';
import { recordsEffects } from './records-effects.js';
import { sharingDestination } from './sharing-destination.js';
import { SharingOutbox } from './sharing-outbox.js';

/** Every records capability folds its effects into {@link customerRecordsExfiltration}, per customer. */
const exfiltrationGate = <TArgs, TTarget>(effectOf: EffectOf<TArgs, TTarget>) =>
  forbidStates(customerRecordsExfiltration, effectOf, { scope: customerRecordsScope });

/**
 * The customer-records capabilities: read the signed-in customer's records, export them into an archive
 * (a `RecordsExport` row), upload the latest export to a host and send a link. Each is permitted on its own
 * (CASL: the customer's own record and exports); together they can move the records off the tenant's
 * boundary. `forbidStates` with {@link customerRecordsExfiltration} folds the customer's effects across all
 * their conversations and denies the upload that would put an archive holding customer records (a fact of the
 * export row) on an external host. Needs a `TrajectoryStore`.
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
    mutates: false,
    forbidStates: exfiltrationGate((_envelope, customer: Customer) => recordsEffects.read(customer.tenantId)),
  })
  async read(
    action: AuthorizedAction<Record<string, never>, Customer>,
  ): Promise<{ customer: string; orders: number[] }> {
    const { id, tenantId, displayName } = action.target;
    const orders = await this.dataSource
      .getRepository(Order)
      .find({ where: { customerId: id, tenantId }, order: { id: 'ASC' } });
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
    mutates: true, // writes a RecordsExport row
    atMostOnce: oncePerToolCall('records-export'),
    forbidStates: exfiltrationGate((_envelope, customer: Customer) => recordsEffects.export(customer.tenantId)),
  })
  async exportRecords(action: AuthorizedAction<Record<string, never>, Customer>): Promise<{ archive: string }> {
    const { id, tenantId } = action.target;
    const exports = this.dataSource.getRepository(RecordsExport);
    const count = await exports.countBy({ tenantId, customerId: id });
    const archive = `records-${id}-${count + 1}.zip`;
    // The row records what the archive holds; a later upload's effect reads it from here, not from the model.
    await exports.insert({ tenantId, customerId: id, archive, holdsCustomerRecords: true });
    return { archive };
  }

  /** `files.upload`: puts the signed-in customer's latest export on `host` and returns its link. */
  @Capability({
    name: RecordsCapability.UploadExport,
    description: "Upload the signed-in customer's latest export to a host",
    action: 'share',
    subject: 'RecordsExport',
    arguments: uploadArguments,
    resolveTarget: resolveLatestExport,
    executionTarget: exportPrimaryKeyPolicy,
    mutates: true,
    atMostOnce: oncePerToolCall('records-upload'),
    forbidStates: exfiltrationGate(({ arguments: a }: Envelope<UploadArguments>, archive: RecordsExport) =>
      recordsEffects.upload(archive, a.host),
    ),
  })
  upload(action: AuthorizedAction<UploadArguments, RecordsExport>): { link: string } {
    const { target, arguments: a } = action;
    const link = `https://${a.host.toLowerCase()}/shared/${target.archive}`;
    this.outbox.add({
      kind: 'upload',
      tenant: target.tenantId,
      customerId: target.customerId,
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
    mutates: true,
    atMostOnce: oncePerToolCall('records-send'),
    forbidStates: exfiltrationGate(({ arguments: a }: Envelope<SendLinkArguments>, customer: Customer) =>
      recordsEffects.send(customer.tenantId, a.to, a.link),
    ),
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
