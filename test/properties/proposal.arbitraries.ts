import fc from 'fast-check';
import type { ActionContext } from '@verdict/nestjs';
import { OrderStatus, StorefrontCapability, StorefrontContexts } from '@verdict/storefront';

/** The seeded order ids (1001–1004); see `storefrontSeedData`. */
export const SEEDED_ORDER_IDS = [1001, 1002, 1003, 1004] as const;

/** Characters in a "huge" string: at least 100 kB of UTF-16 code units. */
export const HUGE_LENGTH = 100_000;

/** Nesting of a "deep" value; see {@link deepText}. */
export interface DepthRange {
  readonly min: number;
  readonly max: number;
}

/**
 * Keys a model might put in a tool call: the real one, near misses, smuggled authority fields and the
 * prototype-pollution keys (kept as own keys because every object is built by `JSON.parse`).
 */
const keys = fc.oneof(
  { arbitrary: fc.constant('orderId'), weight: 4 },
  {
    arbitrary: fc.constantFrom('customerId', 'tenant', 'tenantId', 'actor', 'role', 'admin', 'status', 'id'),
    weight: 3,
  },
  { arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype'), weight: 3 },
  {
    arbitrary: fc.constantFrom('orderID', 'order_id', 'OrderId', 'orderId ', ' orderId', 'orderId\u0000', 'orderid'),
    weight: 2,
  },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 2 },
);

/** JSON text of an order id a model might propose: mostly seeded ids, some in other spellings of the same number. */
const orderIdText = fc.oneof(
  { arbitrary: fc.constantFrom(...SEEDED_ORDER_IDS).map(String), weight: 8 },
  { arbitrary: fc.constantFrom('1002.0', '1.002e3', '10020e-1', '1001.00'), weight: 1 },
  { arbitrary: fc.integer({ min: 995, max: 1010 }).map(String), weight: 1 },
);

/** JSON text of a string of at least {@link HUGE_LENGTH} characters (or a number literal that long). */
const hugeText = fc
  .tuple(fc.constantFrom('x', '1', 'é', '🙂', '\u0000', '"'), fc.string({ maxLength: 8 }), fc.boolean())
  .map(([unit, tail, numeric]) =>
    numeric ? `1${'0'.repeat(HUGE_LENGTH)}` : JSON.stringify(unit.repeat(HUGE_LENGTH) + tail),
  );

/**
 * JSON text nested `depth` levels (arrays, or objects under one key) around `leaf`. Built as text and
 * parsed, because `JSON.parse` (unlike `JSON.stringify`) does not recurse on the call stack.
 */
export function deepText(depth: number, kind: 'array' | 'object', key: string, leaf: string): string {
  if (kind === 'array') return `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
  return `${`{${JSON.stringify(key)}:`.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
}

/** JSON text of a deeply nested value. */
const deepValueText = (depth: DepthRange) =>
  fc
    .record({
      depth: fc.integer(depth),
      kind: fc.constantFrom('array' as const, 'object' as const),
      key: keys,
      leaf: fc.oneof(orderIdText, fc.constant('null')),
    })
    .map(({ depth, kind, key, leaf }) => deepText(depth, kind, key, leaf));

/** JSON text of scalars, including numbers that parse to ±Infinity or -0 and numeric-looking strings. */
const scalarText = fc.oneof(
  orderIdText,
  fc.integer().map(String),
  fc.maxSafeInteger().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
  fc.constantFrom(
    '0',
    '-0',
    '-1002',
    '1002.5',
    '1e21',
    '1e400',
    '-1e400',
    '9007199254740993',
    '5e-324',
    'null',
    'true',
    'false',
  ),
  fc.constantFrom(
    '""',
    '"1002"',
    '"NaN"',
    '"Infinity"',
    '" 1002"',
    '"0x3EA"',
    '"1002; DROP TABLE storefront_orders"',
    '"\\ud800"',
  ),
  fc.string().map((value) => JSON.stringify(value)),
);

/** JSON text of any value a model could emit, with the hostile cases mixed in. */
const valueText = (depth: DepthRange) =>
  fc.letrec<{ value: string; object: string; array: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { arbitrary: scalarText, weight: 6 },
      { arbitrary: tie('object'), weight: 2 },
      { arbitrary: tie('array'), weight: 1 },
      { arbitrary: hugeText, weight: 1 },
      { arbitrary: deepValueText(depth), weight: 1 },
    ),
    object: fc.array(fc.tuple(keys, tie('value')), { maxLength: 4 }).map(objectText),
    array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  })).value;

/** `{"k":v,...}` from entries whose values are already JSON text; duplicate keys are kept (the last wins). */
function objectText(entries: readonly (readonly [string, string])[]): string {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
}

/** Fields a model might add to smuggle authority or pollute prototypes, next to a good `orderId`. */
const smuggled = fc.subarray<readonly [string, string]>(
  [
    ['customerId', '91'],
    ['customerId', '72'],
    ['tenant', '"globex"'],
    ['tenantId', '"acme"'],
    ['actor', '{"customerId":73}'],
    ['role', '"support"'],
    ['__proto__', '{"admin":true}'],
    ['__proto__', '{"orderId":1001,"customerId":91}'],
    ['constructor', '{"prototype":{"admin":true}}'],
    ['prototype', '{"admin":true}'],
    ['status', '"placed"'],
  ],
  { maxLength: 4 },
);

/**
 * Argument objects with a plausible `orderId`: mostly a seeded id, plus smuggled fields at any position
 * (including after `orderId`, and a second `orderId` — JSON's last duplicate wins).
 */
const plausibleArgumentsText = (depth: DepthRange) =>
  fc
    .record({
      orderId: orderIdText,
      extra: smuggled,
      at: fc.nat(),
      noise: fc.array(fc.tuple(keys, valueText(depth)), { maxLength: 2 }),
    })
    .map(({ orderId, extra, at, noise }) => {
      const entries: (readonly [string, string])[] = [...extra, ...noise];
      entries.splice(at % (entries.length + 1), 0, ['orderId', orderId]);
      return objectText(entries);
    });

/** JSON text of tool-call arguments: plausible objects, `orderId` with a hostile value, and anything else. */
const argumentsText = (depth: DepthRange) =>
  fc.oneof(
    { arbitrary: plausibleArgumentsText(depth), weight: 8 },
    {
      arbitrary: fc
        .tuple(valueText(depth), smuggled)
        .map(([orderId, extra]) => objectText([['orderId', orderId], ...extra])),
      weight: 3,
    },
    { arbitrary: valueText(depth), weight: 2 },
  );

/** Arguments a model could send (parsed JSON), for the bound LangChain tool. */
export const jsonArguments = (depth: DepthRange): fc.Arbitrary<unknown> =>
  argumentsText(depth).map((text): unknown => JSON.parse(text));

/**
 * Arguments an application could pass to `VerdictService.execute`: the JSON ones plus values JSON cannot
 * carry (NaN, ±Infinity, -0, `undefined`, a null-prototype object).
 */
export const anyArguments = (depth: DepthRange): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: jsonArguments(depth), weight: 12 },
    {
      arbitrary: fc.constantFrom<unknown>(
        undefined,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        Number.NEGATIVE_INFINITY,
        -0,
        { orderId: Number.NaN },
        { orderId: Number.POSITIVE_INFINITY },
        { orderId: -0 },
        { orderId: undefined },
        { orderId: 1002, customerId: Number.NaN },
      ),
      weight: 1,
    },
    {
      arbitrary: fc
        .constantFrom(...SEEDED_ORDER_IDS)
        .map((orderId) => Object.assign(Object.create(null) as object, { orderId })),
      weight: 1,
    },
  );

/** Capability names: the two real ones, near misses, prototype keys, random and huge strings. */
export const capabilityNames = fc.oneof(
  { arbitrary: fc.constantFrom<string>(StorefrontCapability.ViewOrder, StorefrontCapability.CancelOrder), weight: 14 },
  {
    arbitrary: fc.constantFrom(
      'orders.View',
      'Orders.view',
      'orders.view ',
      ' orders.view',
      'orders.view\n',
      'orders.view\u0000',
      'orders.\u200bview',
      'оrders.view', // Cyrillic "о"
      'orders.cancel ',
      'orders.CANCEL',
      'orders_cancel',
      'order.cancel',
      'orders.cancel.',
      'orders.*',
      'orders',
      'lookup_order',
      'cancel_order',
      '',
      ' ',
    ),
    weight: 3,
  },
  {
    arbitrary: fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '__defineGetter__',
    ),
    weight: 2,
  },
  { arbitrary: fc.string(), weight: 1 },
  { arbitrary: fc.string({ maxLength: 4 }).map((tail) => 'o'.repeat(HUGE_LENGTH) + tail), weight: 1 },
);

/** Tool-call ids: transport metadata, never identity. */
export const toolCallIds = fc.oneof(fc.string(), fc.uuid(), fc.constant('call_1002'), fc.constant(''));

const tenants = fc.constantFrom<string | null>('acme', 'globex', null, '');
const customerIds = fc.constantFrom(72, 91, 73, 999);

/** Actors that are not a storefront actor (or only look like one), as a misconfigured server might bind. */
const malformedActors = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    undefined,
    72,
    '72',
    [72],
    {},
    { id: 72 },
    { customer_id: 72 },
    { customerId: '72' },
    { customerId: 72.5 },
    { customerId: -72 },
    { customerId: 0 },
    { customerId: Number.NaN },
    { customerId: Number.POSITIVE_INFINITY },
    { customerId: 2 ** 53 },
    { customerId: [72] },
    { customerId: null },
  ),
  fc.constant(null).map((): unknown => JSON.parse('{"__proto__":{"customerId":72}}')),
  fc.record({
    customerId: fc.oneof(customerIds, fc.integer(), fc.double(), fc.string()),
    tenant: tenants,
    role: fc.constantFrom('support', 'admin'),
  }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Tenants a misconfigured server might bind: near misses and non-strings. */
const oddTenants = fc.constantFrom<unknown>(
  'ACME',
  'acme ',
  ' acme',
  'Acme',
  'globex\u0000',
  "acme' OR '1'='1",
  'initech',
  undefined,
  0,
  ['acme'],
);

/**
 * Action contexts: the seeded customers in their own tenant (most), any of 72/91/73/999 in
 * acme/globex/null/'', malformed actors, odd tenants, and metadata that tries to claim authority.
 * `undefined` means the proposal runs outside any bound context.
 */
export const actionContexts: fc.Arbitrary<ActionContext | undefined> = fc.oneof(
  {
    arbitrary: fc.constantFrom<ActionContext>(
      StorefrontContexts.customer72,
      StorefrontContexts.customer91,
      StorefrontContexts.customer73,
    ),
    weight: 12,
  },
  { arbitrary: fc.record({ actor: customerIds.map((customerId) => ({ customerId })), tenant: tenants }), weight: 4 },
  { arbitrary: fc.record({ actor: malformedActors, tenant: tenants }), weight: 2 },
  {
    arbitrary: fc
      .record({ actor: customerIds.map((customerId) => ({ customerId })), tenant: oddTenants })
      .map((context) => context as ActionContext),
    weight: 1,
  },
  {
    arbitrary: fc
      .record({
        actor: customerIds.map((customerId) => ({ customerId })),
        tenant: tenants,
        metadata: fc.constant({ customerId: 91, tenant: 'acme', admin: true }),
      })
      .map((context): ActionContext => context),
    weight: 1,
  },
  { arbitrary: fc.constant(undefined), weight: 1 },
);

/** Order status of 1001–1004 before a proposal: mostly `placed`, so cancels are not trivially denied. */
export const orderStatuses: fc.Arbitrary<readonly OrderStatus[]> = fc.array(
  fc.constantFrom<OrderStatus>(OrderStatus.Placed, OrderStatus.Placed, OrderStatus.Shipped, OrderStatus.Cancelled),
  {
    minLength: SEEDED_ORDER_IDS.length,
    maxLength: SEEDED_ORDER_IDS.length,
  },
);
