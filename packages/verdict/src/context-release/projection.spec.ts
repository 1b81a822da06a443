import { describe, expect, it } from '@jest/globals';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { InvalidReleaseRequestError } from './invalid-release-request.error.js';
import { project } from './projection.js';
import { parseReleasePaths } from './release-path.js';

function setup(only: string[], options: { redact?: string[]; scan?: string[]; scrub?: (text: string) => string } = {}) {
  return (payload: Record<string, unknown>) =>
    project(payload, {
      only: parseReleasePaths(only, 'only()'),
      redact: parseReleasePaths(options.redact ?? [], 'redact()'),
      replacement: '[REDACTED]',
      scan: parseReleasePaths(options.scan ?? [], 'scan()'),
      scrub: options.scrub ?? ((text) => text),
      redactKey: (key) => (key.includes('@') ? 'EMAIL' : undefined),
      scanKey: (key) => (key.includes('@') ? 'EMAIL' : undefined),
    });
}

const customer = () => ({
  first_name: 'Ada',
  email: 'ada@example.org',
  ssn: '078-05-1120',
  address: { city: 'London', street: '12 St James Sq' },
  orders: [
    { number: 'A-1', status: 'shipped', card: '4111111111111111' },
    { number: 'A-2', status: 'pending', card: '5555555555554444' },
  ],
});

describe('project', () => {
  it('releases only the allowlisted paths', () => {
    const { payload } = setup(['first_name', 'orders.*.status'])(customer());
    expect(payload).toEqual({ first_name: 'Ada', orders: [{ status: 'shipped' }, { status: 'pending' }] });
  });

  it('releases a whole subtree for a path that ends at an object or array', () => {
    const { payload } = setup(['address', 'orders.1'])(customer());
    expect(payload).toEqual({ address: { city: 'London', street: '12 St James Sq' }, orders: [customer().orders[1]] });
  });

  it('matches every key of an object with *', () => {
    const { payload } = setup(['address.*'])(customer());
    expect(payload).toEqual({ address: customer().address });
  });

  it('omits missing paths, paths below a scalar, and undefined values', () => {
    const { payload } = setup(['middle_name', 'first_name.initial', 'orders.*.refund', 'note'])({
      ...customer(),
      note: undefined,
    });
    expect(payload).toEqual({});
  });

  it('leaves out array elements from which nothing is released, keeping the order of the rest', () => {
    const { payload } = setup(['orders.*.status'])({
      orders: [{ status: 'a' }, { number: 'x' }, 'text', { status: 'c' }],
    });
    expect(payload).toEqual({ orders: [{ status: 'a' }, { status: 'c' }] });
  });

  it('returns copies: changing the released payload leaves the source alone', () => {
    const source = customer();
    const { payload } = setup(['address'])(source);
    (payload.address as Record<string, unknown>).city = 'Paris';
    expect(source.address.city).toBe('London');
  });

  describe('redaction', () => {
    it('replaces exact and wildcard paths, and every leaf of a redacted subtree, after projection', () => {
      const { payload, redactedShapes, redactedCount } = setup(
        ['first_name', 'email', 'address', 'orders.*.card', 'orders.*.status'],
        {
          redact: ['email', 'orders.*.card', 'address'],
        },
      )(customer());
      expect(payload).toEqual({
        first_name: 'Ada',
        email: '[REDACTED]',
        address: { city: '[REDACTED]', street: '[REDACTED]' },
        orders: [
          { status: 'shipped', card: '[REDACTED]' },
          { status: 'pending', card: '[REDACTED]' },
        ],
      });
      expect({ redactedShapes, redactedCount }).toEqual({
        redactedShapes: ['address.city', 'address.street', 'email', 'orders.*.card'],
        redactedCount: 5,
      });
    });

    it('redacts an object whole when a detector finds data in one of its keys, at any depth under the path', () => {
      const released = setup(['contacts'], { redact: ['contacts'] })({
        contacts: { work: { 'ada@example.org': 'primary' }, home: { phone: '020 7946 0958' } },
      });
      expect(released.payload).toEqual({ contacts: { home: { phone: '[REDACTED]' }, work: '[REDACTED]' } });
      expect(released.redactedShapes).toEqual(['contacts.home.phone', 'contacts.work']);
      // The allowlist's wildcard selects the same keys: the same object, redacted whole.
      const selected = setup(['contacts.*'], { redact: ['contacts'] })({ contacts: { 'ada@example.org': 'primary' } });
      expect(selected.payload).toEqual({ contacts: '[REDACTED]' });
      // Control: keys the allowlist names are the application's, kept, each value redacted.
      expect(setup(['user.name'], { redact: ['user'] })({ user: { name: 'Ada' } }).payload).toEqual({
        user: { name: '[REDACTED]' },
      });
    });

    it('redacts a released field that lies under a redaction path, however deep the allowlist reaches', () => {
      expect(setup(['user.name'], { redact: ['user'] })({ user: { name: 'Alice' } }).payload).toEqual({
        user: { name: '[REDACTED]' },
      });
      expect(setup(['orders.*.card'], { redact: ['orders'] })({ orders: [{ card: '4111' }] }).payload).toEqual({
        orders: [{ card: '[REDACTED]' }],
      });
      expect(setup(['user.name'], { redact: ['*'] })({ user: { name: 'Alice' } }).payload).toEqual({
        user: { name: '[REDACTED]' },
      });
    });

    it('addresses source positions, so a shifted array element is redacted where it came from', () => {
      const { payload } = setup(['orders.*.email'], { redact: ['orders.2.email'] })({
        orders: [{ email: 'a@x' }, {}, { email: 'c@x' }],
      });
      expect(payload).toEqual({ orders: [{ email: 'a@x' }, { email: '[REDACTED]' }] });
    });

    it('redacts values that are not JSON, so they never need to leave', () => {
      const { payload } = setup(['created'], { redact: ['created'] })({ created: new Date(0) });
      expect(payload).toEqual({ created: '[REDACTED]' });
    });
  });

  describe('scanning', () => {
    it('scrubs only the marked string fields that are released, and reports the ones that changed', () => {
      const scrub = (text: string) => text.replace(/\d{3}-\d{2}-\d{4}/g, '<SSN>');
      const { payload, scannedShapes } = setup(['note', 'other'], { scan: ['note'], scrub })({
        note: 'ssn 078-05-1120',
        other: '078-05-1120',
      });
      expect(payload).toEqual({ note: 'ssn <SSN>', other: '078-05-1120' });
      expect(scannedShapes).toEqual(['note']);
    });

    it('scans a released field that lies under a scan path, however deep the allowlist reaches', () => {
      const scrub = (text: string) => text.replace(/\d{3}-\d{2}-\d{4}/g, '<SSN>');
      const { payload, scannedCount } = setup(['user.note'], { scan: ['user'], scrub })({
        user: { note: 'ssn 078-05-1120' },
      });
      expect({ payload, scannedCount }).toEqual({ payload: { user: { note: 'ssn <SSN>' } }, scannedCount: 1 });
    });
  });

  describe('prototype pollution', () => {
    const hostile = () =>
      JSON.parse(
        '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "prototype": 1, "safe": {"__proto__": {"polluted": "yes"}, "ok": 2}}',
      );

    it('never releases __proto__, constructor or prototype keys, through * or a subtree', () => {
      const { payload } = setup(['*', 'safe'])(hostile());
      expect(payload).toEqual({ safe: { ok: 2 } });
      expect(Object.keys(payload)).toEqual(['safe']);
      expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
      expect(Object.getPrototypeOf(payload.safe)).toBe(Object.prototype);
    });

    it('pollutes no prototype', () => {
      setup(['*', '*.*', 'safe'])(hostile());
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
    });
  });

  it('refuses to descend into a class instance', () => {
    expect(() => setup(['when.time'])({ when: new Date(0) })).toThrow(InvalidReleaseRequestError);
  });

  it('refuses a cyclic released subtree with a typed error instead of overflowing the stack', () => {
    const loop: Record<string, unknown> = { name: 'x' };
    loop.self = loop;
    expect(() => setup(['loop'])({ loop })).toThrow(NonCanonicalValueError);
  });
});
