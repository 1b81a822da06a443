// The world of the random-proposal property test, shared with the soak (`npm run soak`): the storefront
// behind Verdict with its executors recorded, the proposal arbitraries, and the invariants every proposal
// must satisfy. Assertions use `expect` on its own, so the module also runs outside Jest.
import { ToolMessage } from '@langchain/core/messages';
import { Test } from '@nestjs/testing';
import { expect } from 'expect';
import fc from 'fast-check';
import {
  ActionContextStore,
  type ActionContext,
  type AuthorizedAction,
  DEFAULT_PUBLIC_MESSAGE,
  ApplicationFaultError,
  Disposition,
  type ExecutionResult,
  InMemoryEvidenceRecorder,
  MissingActionContextError,
  VerdictError,
  VerdictModule,
  VerdictService,
  isActionContext,
  InMemoryExecutionClaimStore,
} from '@verdict/nestjs';
import { VerdictLangChainModule, VerdictTools } from '@verdict/nestjs/langchain';
import {
  Customer,
  LOOKUP_ORDER_TOOL,
  Order,
  OrderStatus,
  StorefrontAbilityFactory,
  StorefrontCapabilities,
  StorefrontCapability,
  createLookupOrderTool,
  openSqliteStorefront,
} from '@verdict/storefront';
import { DataSource } from 'typeorm';
import {
  type DepthRange,
  SEEDED_ORDER_IDS,
  actionContexts,
  anyArguments,
  capabilityNames,
  jsonArguments,
  orderStatuses,
  toolCallIds,
} from './proposal.arbitraries.js';

export type Via = 'service' | 'tool';

/** One random proposal and the world it runs in. */
export interface RandomProposal {
  readonly via: Via;
  /** For `tool`, always `orders.view` (the capability the tool is bound to). */
  readonly capability: string;
  /** The ToolCall `name` (transport metadata, `tool` only). */
  readonly toolName?: string;
  readonly arguments: unknown;
  readonly toolCallId: string | undefined;
  /** `undefined`: run outside any bound action context. */
  readonly context: ActionContext | undefined;
  /** Status of orders 1001–1004 before the proposal runs. */
  readonly statuses: readonly OrderStatus[];
}

/** A storefront order as read from the database, as plain data. */
export interface OrderRow {
  readonly id: number;
  readonly tenantId: string;
  readonly customerId: number;
  readonly status: OrderStatus;
  readonly total: number;
  readonly description: string;
  readonly version: number;
}

/** One call of a capability's executor, captured before it runs. */
export interface Execution {
  readonly method: 'view' | 'cancel';
  readonly action: AuthorizedAction<unknown, Order>;
}

export type Outcome =
  | { readonly kind: 'result'; readonly result: ExecutionResult }
  | { readonly kind: 'tool'; readonly message: unknown }
  | { readonly kind: 'error'; readonly error: unknown };

/** Everything observed around one proposal. */
export interface Observation {
  readonly proposal: RandomProposal;
  readonly before: readonly OrderRow[];
  readonly after: readonly OrderRow[];
  readonly executions: readonly Execution[];
  readonly outcome: Outcome;
}

/** Own property keys and values of the built-in prototypes, to detect pollution. */
type PrototypeSnapshot = readonly (readonly [object, PropertyKey, unknown, unknown])[];

const PROTOTYPES: readonly object[] = [
  Object.prototype,
  Array.prototype,
  Function.prototype,
  String.prototype,
  Number.prototype,
];
const NOT_EXECUTED_DISPOSITIONS: readonly string[] = Object.values(Disposition).filter(
  (disposition) => disposition !== Disposition.Permit,
);

/** Every own key of the built-in prototypes with its value (or getter and setter). */
function prototypeSnapshot(): PrototypeSnapshot {
  return PROTOTYPES.flatMap((prototype) =>
    Reflect.ownKeys(prototype).map((key) => {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, key)!;
      return [prototype, key, 'value' in descriptor ? descriptor.value : descriptor.get, descriptor.set] as const;
    }),
  );
}

/** Keys added to, removed from or changed on the built-in prototypes since `baseline`. */
function pollutionSince(baseline: PrototypeSnapshot): string[] {
  const now = prototypeSnapshot();
  const same = (a: PrototypeSnapshot[number], b: PrototypeSnapshot[number] | undefined) =>
    b !== undefined && a.every((part, i) => Object.is(part, b[i]));
  // Own keys come back in a stable order, so an unpolluted snapshot matches entry by entry.
  if (now.length === baseline.length && now.every((entry, i) => same(entry, baseline[i]))) return [];
  const changed = [
    ...now.filter((entry) => !baseline.some((old) => same(old, entry))),
    ...baseline.filter((old) => !now.some((entry) => same(old, entry))),
  ];
  return changed.map(
    ([prototype, key]) =>
      `${(prototype as { constructor: { name: string } }).constructor.name}.prototype[${String(key)}]`,
  );
}

/**
 * Replaces the `view` and `cancel` executors on `capabilities` with wrappers that record every
 * AuthorizedAction before running the real method. Installed before boot, so Verdict's discovery binds
 * the wrappers; the `@Capability` metadata Nest reads from the method is copied onto them.
 */
function recordExecutions(capabilities: StorefrontCapabilities, executions: Execution[]): void {
  for (const method of ['view', 'cancel'] as const) {
    const declared = StorefrontCapabilities.prototype[method] as (action: AuthorizedAction<unknown, Order>) => unknown;
    const recording = function (this: StorefrontCapabilities, action: AuthorizedAction<unknown, Order>) {
      executions.push({ method, action });
      return declared.call(this, action);
    };
    for (const key of Reflect.getMetadataKeys(declared))
      Reflect.defineMetadata(key, Reflect.getMetadata(key, declared), recording);
    Object.defineProperty(capabilities, method, { value: recording });
  }
}

/**
 * The policy, written independently of Verdict: the proposal names a real capability, carries a positive
 * safe-integer `orderId`, and the bound actor is a customer of the bound tenant who owns that order in
 * that tenant; a cancel also needs the order to be `placed`.
 */
export function policyPermits(
  proposal: RandomProposal,
  before: readonly OrderRow[],
  customerTenants: ReadonlyMap<number, string>,
): boolean {
  const { capability, arguments: args, context } = proposal;
  if (context === undefined) return false;
  if (capability !== StorefrontCapability.ViewOrder && capability !== StorefrontCapability.CancelOrder) return false;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return false;
  const { orderId } = args as { orderId?: unknown };
  if (typeof orderId !== 'number' || !Number.isSafeInteger(orderId) || orderId <= 0) return false;
  const { actor, tenant } = context;
  if (typeof actor !== 'object' || actor === null) return false;
  const { customerId } = actor as { customerId?: unknown };
  if (typeof customerId !== 'number' || !Number.isSafeInteger(customerId) || customerId <= 0) return false;
  if (typeof tenant !== 'string' || tenant === '' || customerTenants.get(customerId) !== tenant) return false;
  const order = before.find((row) => row.id === orderId);
  if (order === undefined || order.tenantId !== tenant || order.customerId !== customerId) return false;
  return capability === StorefrontCapability.ViewOrder || order.status === OrderStatus.Placed;
}

/** The text a tool answered with: a ToolMessage's string content (its call id checked), or a bare string. */
function toolContent(message: unknown, toolCallId: string | undefined): string {
  if (typeof message === 'string') return message;
  if (!(message instanceof ToolMessage) || typeof message.content !== 'string')
    throw new Error(`the tool answered with neither a string nor a ToolMessage: ${String(message)}`);
  expect(message.tool_call_id).toBe(toolCallId);
  return message.content;
}

/** A short, printable description of a thrown value. */
export function describeThrown(error: unknown): string {
  return error instanceof Error
    ? `${error.constructor.name}: ${error.message.slice(0, 200)}`
    : `non-error ${typeof error}: ${String(error).slice(0, 200)}`;
}

/**
 * The invariants every proposal must satisfy, checked against what was observed and against the database
 * rows read before and after it. Throws (via `expect`) on the first violation.
 */
function assertInvariants(
  observation: Observation,
  customerTenants: ReadonlyMap<number, string>,
  prototypes: PrototypeSnapshot,
): void {
  const { proposal, before, after, executions, outcome } = observation;

  // 4. No prototype pollution.
  expect(({} as Record<string, unknown>).admin).toBeUndefined();
  expect(pollutionSince(prototypes)).toEqual([]);

  // 2. Only typed errors, and none at all inside a valid bound action context; a missing or malformed
  //    context (no actor, a tenant that is not a string or null) is refused with MissingActionContextError —
  //    through a tool invoked with a tool call, wrapped as the cause of an ApplicationFaultError (ADR 0014).
  const bound = isActionContext(proposal.context);
  if (outcome.kind === 'error') {
    if (!(outcome.error instanceof VerdictError))
      throw new Error(`untyped exception: ${describeThrown(outcome.error)}`, { cause: outcome.error });
    if (bound)
      throw new Error(`exception inside a bound action context: ${describeThrown(outcome.error)}`, {
        cause: outcome.error,
      });
    const refusal =
      outcome.error instanceof ApplicationFaultError && proposal.via === 'tool' ? outcome.error.cause : outcome.error;
    expect(refusal).toBeInstanceOf(MissingActionContextError);
  } else if (!bound) {
    throw new Error('a proposal outside any valid action context was answered instead of refused with a typed error');
  }

  // 1. Nothing executes unless the actor owns the order in its own tenant (a cancel: a placed order).
  expect(executions.length).toBeLessThanOrEqual(1);
  const execution = executions[0];
  const row = execution === undefined ? undefined : before.find((order) => order.id === execution.action.target.id);
  if (execution !== undefined) {
    const context = proposal.context;
    if (context === undefined || row === undefined)
      throw new Error(
        `executed ${execution.method} with context ${String(context)} on unknown order ${execution.action.target.id}`,
      );
    const { customerId } = context.actor as { customerId?: unknown };
    expect(execution.action.capability).toBe(proposal.capability);
    expect(execution.action.capability).toBe(
      execution.method === 'view' ? StorefrontCapability.ViewOrder : StorefrontCapability.CancelOrder,
    );
    expect(execution.action.context.actor).toBe(context.actor);
    expect(execution.action.context.tenant).toBe(context.tenant);
    expect({
      customerId: row.customerId,
      tenantId: row.tenantId,
      customerTenant: customerTenants.get(row.customerId),
    }).toEqual({
      customerId,
      tenantId: context.tenant,
      customerTenant: context.tenant,
    });
    expect(execution.action.arguments).toStrictEqual({ orderId: row.id });
    if (execution.method === 'cancel') expect(row.status).toBe(OrderStatus.Placed);
  }

  // The answer agrees with what ran; 3. a bound tool that did not execute says only the fixed JSON.
  if (outcome.kind === 'result') {
    expect(outcome.result.executed).toBe(execution !== undefined);
    if (outcome.result.executed) {
      expect(outcome.result.decision.permitted).toBe(true);
      const expected =
        execution?.method === 'view'
          ? { id: row?.id, status: row?.status, total: row?.total, description: row?.description }
          : { id: row?.id, status: OrderStatus.Cancelled };
      expect(outcome.result.output).toStrictEqual(expected);
    } else {
      expect(outcome.result.decision.permitted).toBe(false);
    }
  }
  if (outcome.kind === 'tool') {
    const content = toolContent(outcome.message, proposal.toolCallId);
    if (execution !== undefined) {
      expect(content).toBe(
        JSON.stringify({ id: row?.id, status: row?.status, total: row?.total, description: row?.description }),
      );
    } else {
      const { decision } = JSON.parse(content) as { decision?: unknown };
      expect(NOT_EXECUTED_DISPOSITIONS).toContain(decision);
      expect(content).toBe(
        JSON.stringify({
          status: 'not_executed',
          capability: StorefrontCapability.ViewOrder,
          decision,
          message: DEFAULT_PUBLIC_MESSAGE,
        }),
      );
    }
  }

  // Only an executed cancel changes the database, and only its own order.
  const cancelledId = execution?.method === 'cancel' ? execution.action.target.id : undefined;
  expect(after.map((order) => order.id)).toEqual(before.map((order) => order.id));
  before.forEach((old, i) => {
    const now = after[i]!;
    if (old.id !== cancelledId) return expect(now).toEqual(old);
    expect({ ...now, version: old.version }).toEqual({ ...old, status: OrderStatus.Cancelled });
    expect(now.version).toBeGreaterThan(old.version);
  });

  // The converse: what the policy allows does run (the generator is not only producing denials by accident).
  expect(execution !== undefined).toBe(policyPermits(proposal, before, customerTenants));
}

/**
 * The storefront on a fresh SQLite database behind Verdict and the bound `lookup_order` tool, with every
 * executor call recorded: `observe` runs one proposal from its order statuses and captures everything
 * needed to judge it, `check` asserts every invariant of one observation. Close it with `close`.
 *
 * @example
 * const world = await openProposalWorld();
 * world.check(await world.observe(proposal));
 * await world.close();
 */
export async function openProposalWorld() {
  const closers: Array<() => Promise<void>> = [];
  const dataSource = await openSqliteStorefront();
  closers.push(() => dataSource.destroy());
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        executionClaims: new InMemoryExecutionClaimStore(), // orders.cancel is at most once
        abilityFactory: new StorefrontAbilityFactory(dataSource),
        evidence: new InMemoryEvidenceRecorder(),
      }),
      VerdictLangChainModule,
    ],
    providers: [{ provide: DataSource, useValue: dataSource }, StorefrontCapabilities],
  }).compile();
  const executions: Execution[] = [];
  recordExecutions(moduleRef.get(StorefrontCapabilities), executions);
  await moduleRef.init();
  closers.push(() => moduleRef.close());

  const contexts = moduleRef.get(ActionContextStore);
  const service = moduleRef.get(VerdictService);
  const lookupOrder = moduleRef
    .get(VerdictTools)
    .bound(createLookupOrderTool(dataSource), StorefrontCapability.ViewOrder);
  const customerTenants: ReadonlyMap<number, string> = new Map(
    (await dataSource.getRepository(Customer).find()).map((customer) => [customer.id, customer.tenantId]),
  );
  const prototypes = prototypeSnapshot();
  const tally = { proposals: 0, executed: 0 };

  /** The orders, as plain rows, by id. */
  const orders = async (): Promise<OrderRow[]> =>
    (await dataSource.getRepository(Order).find({ order: { id: 'ASC' } })).map((order) => ({ ...order }));

  /** Sets the status of 1001–1004 with one SQL update (no version bump), so cancels never run out of placed orders. */
  const restore = (statuses: readonly OrderStatus[]) =>
    dataSource.query(
      `UPDATE storefront_orders SET status = CASE id ${SEEDED_ORDER_IDS.map(() => 'WHEN ? THEN ?').join(' ')} END WHERE id IN (${SEEDED_ORDER_IDS.map(() => '?').join(', ')})`,
      [...SEEDED_ORDER_IDS.flatMap((id, i) => [id, statuses[i]]), ...SEEDED_ORDER_IDS],
    );

  /** Sends the proposal down its path, inside its action context (if any). */
  const send = (proposal: RandomProposal): Promise<unknown> => {
    const { via, capability, arguments: args, toolCallId, toolName } = proposal;
    const call = () =>
      via === 'tool'
        ? lookupOrder.invoke({
            name: toolName ?? LOOKUP_ORDER_TOOL.name,
            args: args as Record<string, unknown>,
            id: toolCallId,
            type: 'tool_call',
          })
        : service.execute({ capability, arguments: args, toolCallId });
    return proposal.context === undefined ? call() : contexts.run(proposal.context, call);
  };

  /** Runs one proposal from its database state and records everything needed to judge it. */
  const observe = async (proposal: RandomProposal): Promise<Observation> => {
    await restore(proposal.statuses);
    const before = await orders();
    executions.splice(0);
    let outcome: Outcome;
    try {
      const answer = await send(proposal);
      outcome =
        proposal.via === 'tool'
          ? { kind: 'tool', message: answer }
          : { kind: 'result', result: answer as ExecutionResult };
    } catch (error) {
      outcome = { kind: 'error', error };
    }
    const after = await orders();
    tally.proposals += 1;
    if (executions.length > 0) tally.executed += 1;
    return { proposal, before, after, executions: executions.splice(0), outcome };
  };

  /** Asserts every invariant of one observation. */
  const check = (observation: Observation) => assertInvariants(observation, customerTenants, prototypes);

  /** Closes the Nest module and the database. */
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };

  return { observe, check, tally, customerTenants, close };
}

/** An open {@link openProposalWorld}. */
export type ProposalWorld = Awaited<ReturnType<typeof openProposalWorld>>;

/** The seeded statuses of orders 1001–1004. */
export const seededStatuses: readonly OrderStatus[] = [
  OrderStatus.Placed,
  OrderStatus.Placed,
  OrderStatus.Placed,
  OrderStatus.Shipped,
];

/** Proposals to `VerdictService.execute`, nested `depth` deep at most. */
export const serviceProposals = (depth: DepthRange): fc.Arbitrary<RandomProposal> =>
  fc.record({
    via: fc.constant<Via>('service'),
    capability: capabilityNames,
    arguments: anyArguments(depth),
    toolCallId: fc.option(toolCallIds, { nil: undefined }),
    context: actionContexts,
    statuses: orderStatuses,
  });

/** Calls of the bound `lookup_order` tool (sometimes under another tool name), nested `depth` deep at most. */
export const toolProposals = (depth: DepthRange): fc.Arbitrary<RandomProposal> =>
  fc.record({
    via: fc.constant<Via>('tool'),
    capability: fc.constant(StorefrontCapability.ViewOrder),
    toolName: fc.oneof(fc.constant(LOOKUP_ORDER_TOOL.name), capabilityNames),
    arguments: jsonArguments(depth),
    toolCallId: toolCallIds,
    context: actionContexts,
    statuses: orderStatuses,
  });
