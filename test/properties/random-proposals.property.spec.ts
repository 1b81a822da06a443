import { afterEach, describe, expect, it } from '@jest/globals';
import { DEFAULT_PUBLIC_MESSAGE } from '@verdict/nestjs';
import { StorefrontCapability, StorefrontContexts } from '@verdict/storefront';
import fc from 'fast-check';
import { type DepthRange, deepText } from './proposal.arbitraries.js';
import {
  openProposalWorld,
  seededStatuses,
  serviceProposals as serviceProposalsOf,
  toolProposals as toolProposalsOf,
} from './proposal-world.js';

/** Proposals through `VerdictService.execute`. */
const SERVICE_RUNS = 3_000;
/** Proposals through the bound `lookup_order` tool. */
const TOOL_RUNS = 1_000;
/** Set `VERDICT_PROPERTY_SEED` to replay a run; fast-check prints the seed and path of any failure. */
const SEED = process.env.VERDICT_PROPERTY_SEED === undefined ? undefined : Number(process.env.VERDICT_PROPERTY_SEED);
const SERVICE_DEPTH: DepthRange = { min: 1_000, max: 20_000 };
/** Deeper malformed tool calls make LangChain's own parse-error path overflow; see the regression test below. */
const TOOL_DEPTH: DepthRange = { min: 1_000, max: 2_000 };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The property test's world (see `proposal-world.ts`), closed after the test. */
async function setup() {
  const world = await openProposalWorld();
  cleanups.push(() => world.close());
  return world;
}

const serviceProposals = serviceProposalsOf(SERVICE_DEPTH);
const toolProposals = toolProposalsOf(TOOL_DEPTH);

describe('random proposals', () => {
  it('executes the owned order 1002 for customer 72, and the checker rejects that execution for anyone else', async () => {
    const { observe, check } = await setup();
    const owned = await observe({
      via: 'service',
      capability: StorefrontCapability.ViewOrder,
      arguments: { orderId: 1002 },
      toolCallId: 'call_1002',
      context: StorefrontContexts.customer72,
      statuses: seededStatuses,
    });
    expect(owned.executions).toHaveLength(1);
    check(owned);
    expect(() =>
      check({ ...owned, proposal: { ...owned.proposal, context: StorefrontContexts.customer91 } }),
    ).toThrow();
    expect(() =>
      check({ ...owned, proposal: { ...owned.proposal, context: StorefrontContexts.customer72AtGlobex } }),
    ).toThrow();

    const denied = await observe({
      via: 'tool',
      capability: StorefrontCapability.ViewOrder,
      arguments: { orderId: 1001 },
      toolCallId: 'call_1001',
      context: StorefrontContexts.customer72,
      statuses: seededStatuses,
    });
    expect(denied.executions).toHaveLength(0);
    check(denied);
    const leaky = JSON.stringify({
      status: 'not_executed',
      capability: StorefrontCapability.ViewOrder,
      decision: 'deny',
      message: DEFAULT_PUBLIC_MESSAGE,
      reason: 'view Order denied',
    });
    expect(() => check({ ...denied, outcome: { kind: 'tool', message: leaky } })).toThrow();
  });

  it(`never executes anything the actor may not do, across ${SERVICE_RUNS} proposals to VerdictService`, async () => {
    const { observe, check, tally } = await setup();
    await fc.assert(
      fc.asyncProperty(serviceProposals, async (proposal) => check(await observe(proposal))),
      { numRuns: SERVICE_RUNS, seed: SEED },
    );
    expect(tally.proposals).toBeGreaterThanOrEqual(SERVICE_RUNS);
    expect(tally.executed).toBeGreaterThan(0);
  });

  it(`answers the bound lookup_order tool with the order or the fixed not_executed JSON, across ${TOOL_RUNS} tool calls`, async () => {
    const { observe, check, tally } = await setup();
    await fc.assert(
      fc.asyncProperty(toolProposals, async (proposal) => check(await observe(proposal))),
      { numRuns: TOOL_RUNS, seed: SEED },
    );
    expect(tally.proposals).toBeGreaterThanOrEqual(TOOL_RUNS);
    expect(tally.executed).toBeGreaterThan(0);
  });

  // Fails while LangChain's parse-error path JSON.stringify()s the raw input (the stack overflows past a few thousand
  // levels) and Verdict's malformed-input fallback catches only ToolInputParsingException: a RangeError escapes.
  it('answers a malformed tool call nested 10,000 levels deep with the not_executed JSON', async () => {
    const { observe, check } = await setup();
    const nested: unknown = JSON.parse(`{"orderId":${deepText(10_000, 'array', '', '1002')}}`);
    check(
      await observe({
        via: 'tool',
        capability: StorefrontCapability.ViewOrder,
        arguments: nested,
        toolCallId: 'call_deep',
        context: StorefrontContexts.customer72,
        statuses: seededStatuses,
      }),
    );
  });
});
