import { describe, expect, it } from '@jest/globals';
import { AbilityBuilder, createMongoAbility, subject } from '@casl/ability';
import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { Stage } from '../decisions/stage.js';
import { authorizeTarget } from './casl-authorizer.js';

class Order {
  constructor(
    readonly id: number,
    readonly customer: number,
  ) {}
}
class SupportTicket {
  constructor(
    readonly id: number,
    readonly customer: number,
  ) {}
}

function setup() {
  const { can, build } = new AbilityBuilder(createMongoAbility);
  // Customer 72 may cancel their own orders, and cancel every support ticket (a looser rule).
  can('cancel', 'Order', { customer: 72 });
  can('cancel', 'SupportTicket');
  const ability = build();
  const cancelOrder = { name: 'orders.cancel', action: 'cancel', subject: 'Order' } as CapabilityDefinition;
  const authorize = (target: unknown) => authorizeTarget(ability, cancelOrder, target, {}, Stage.Proposal);
  return { authorize };
}

describe('authorizeTarget', () => {
  describe('the subject type of a class instance', () => {
    it('comes from its class, not from a type tag the data carries', () => {
      const { authorize } = setup();
      // A ticket whose row (or model-shaped input) carries a tag naming the capability's subject.
      const ticket = Object.assign(new SupportTicket(5, 91), { __caslSubjectType__: 'Order' });
      expect(authorize(ticket)).toMatchObject({
        disposition: 'deny',
        reason: 'target is a SupportTicket, capability expects a Order',
      });
    });

    it("is not borrowed from another type's rules by a tag on an instance of the right class", () => {
      const { authorize } = setup();
      // Customer 91's order, tagged as a ticket so that the looser ticket rule would apply.
      const order = Object.assign(new Order(1001, 91), { __caslSubjectType__: 'SupportTicket' });
      expect(authorize(order)).toMatchObject({
        disposition: 'deny',
        reason: 'cancel Order denied: no rule permits it',
      });
    });

    it('comes from its class, not from a constructor its data carries', () => {
      const { authorize } = setup();
      // JSON hydrated onto an entity: an own `constructor` property naming the capability's subject.
      const ticket = Object.assign(new SupportTicket(5, 72), JSON.parse('{"constructor":{"name":"Order"}}'));
      expect(authorize(ticket)).toMatchObject({
        disposition: 'deny',
        reason: 'target is a SupportTicket, capability expects a Order',
      });
      const order = Object.assign(new Order(1002, 72), JSON.parse('{"constructor":{"name":"SupportTicket"}}'));
      expect(authorize(order)).toMatchObject({ disposition: 'permit' });
    });

    it('still authorizes an instance of the right class by its own rules (control)', () => {
      const { authorize } = setup();
      expect(authorize(new Order(1002, 72))).toMatchObject({ disposition: 'permit' });
      expect(authorize(Object.assign(new Order(1002, 72), { __caslSubjectType__: 'Order' }))).toMatchObject({
        disposition: 'permit',
      });
    });

    it('honours a CASL subject() wrapper the resolver applied', () => {
      const { authorize } = setup();
      const record = new (class OrderRow {
        constructor(readonly customer: number) {}
      })(72);
      expect(authorize(record)).toMatchObject({
        disposition: 'deny',
        reason: 'target is a OrderRow, capability expects a Order',
      });
      expect(authorize(subject('Order', record))).toMatchObject({ disposition: 'permit' });
    });
  });

  describe('a plain object', () => {
    it("is typed as the capability's subject, whatever tag it carries", () => {
      const { authorize } = setup();
      expect(authorize({ id: 1002, customer: 72, __caslSubjectType__: 'SupportTicket' })).toMatchObject({
        disposition: 'permit',
      });
      expect(authorize({ id: 1001, customer: 91, __caslSubjectType__: 'SupportTicket' })).toMatchObject({
        disposition: 'deny',
      });
    });

    it('keeps the type a resolver gave it with subject(), and is denied as that other type', () => {
      const { authorize } = setup();
      // A raw-query row the resolver typed as a Customer: not to be authorized by the Order rules it happens to match.
      expect(authorize(subject('Customer', { id: 72, customer: 72 }))).toMatchObject({
        disposition: 'deny',
        reason: 'target is a Customer, capability expects a Order',
      });
      expect(authorize(subject('SupportTicket', { id: 5, customer: 91 }))).toMatchObject({ disposition: 'deny' });
    });

    it("types a subject() value of the capability's subject, and copies of any subject() value, as the capability's subject (control)", () => {
      const { authorize } = setup();
      expect(authorize(subject('Order', { id: 1002, customer: 72 }))).toMatchObject({ disposition: 'permit' });
      expect(authorize(subject('Order', { id: 1001, customer: 91 }))).toMatchObject({
        disposition: 'deny',
        reason: 'cancel Order denied: no rule permits it',
      });
      // A copy of a subject() value (a spread, JSON) is data: its tag, if any, is not trusted.
      expect(authorize({ ...subject('Customer', { id: 1002, customer: 72 }) })).toMatchObject({
        disposition: 'permit',
      });
      expect(
        authorize(JSON.parse(JSON.stringify({ __caslSubjectType__: 'Customer', id: 1002, customer: 72 }))),
      ).toMatchObject({ disposition: 'permit' });
    });
  });
});
