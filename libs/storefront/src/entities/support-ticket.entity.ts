import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A support escalation opened by `support.escalate`. Its id is the execution identity Verdict handed the
 * executor (the execution claim id), so one logical escalation can only ever open one ticket.
 */
@Entity('storefront_support_tickets')
export class SupportTicket {
  @PrimaryColumn({ name: 'id', type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ name: 'order_id', type: 'integer' })
  orderId!: number;

  @Column({ name: 'customer_id', type: 'integer' })
  customerId!: number;
}
