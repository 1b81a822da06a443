import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { VerdictError } from '@verdict/nestjs';
import type { DepthRange } from '../../test/properties/proposal.arbitraries.js';
import {
  type Observation,
  describeThrown,
  openProposalWorld,
  policyPermits,
  serviceProposals,
  toolProposals,
} from '../../test/properties/proposal-world.js';
import { type SoakViolations, noViolations } from './soak-tally.js';

/** The property test's depths: LangChain's own parse-error path overflows on deeper malformed tool calls. */
const SERVICE_DEPTH: DepthRange = { min: 1_000, max: 20_000 };
const TOOL_DEPTH: DepthRange = { min: 1_000, max: 2_000 };
/** Proposals drawn per `fc.sample`: each batch is generated, run and dropped before the next. */
const BATCH = 500;
/** Violations printed in full; the rest are only counted. */
const SHOWN = 5;

/** The proposals soak's counts. */
export interface ProposalSoakResult {
  readonly proposals: number;
  readonly executed: number;
  readonly seconds: number;
  readonly seed: number;
  readonly violations: SoakViolations;
  /** The first few violations, with the proposal that caused them. */
  readonly examples: readonly string[];
}

/**
 * `count` random proposals through the property test's world (the arbitraries of
 * `proposal.arbitraries.ts`, the checks of `proposal-world.ts`), about 8 in 10 to `VerdictService`
 * and the rest through the bound `lookup_order` tool, as the property test splits them.
 * Every proposal is judged; nothing stops at the first failure.
 */
export async function soakProposals(count: number, seed: number): Promise<ProposalSoakResult> {
  const world = await openProposalWorld();
  const violations = noViolations();
  const examples: string[] = [];
  const proposals = fc.oneof(
    { arbitrary: serviceProposals(SERVICE_DEPTH), weight: 16 },
    { arbitrary: toolProposals(TOOL_DEPTH), weight: 5 },
  );
  const started = performance.now();
  try {
    for (let first = 0; first < count; first += BATCH) {
      for (const proposal of fc.sample(proposals, { numRuns: Math.min(BATCH, count - first), seed: seed + first })) {
        const observation = await world.observe(proposal);
        const found = judge(observation, world.customerTenants, () => world.check(observation));
        for (const [kind, detail] of found) {
          violations[kind]++;
          if (examples.length < SHOWN) examples.push(`${kind}: ${detail} — ${JSON.stringify(proposal).slice(0, 300)}`);
        }
      }
    }
  } finally {
    await world.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return { proposals: world.tally.proposals, executed: world.tally.executed, seconds, seed, violations, examples };
}

/** What is wrong with one observation: an unauthorized execution, an untyped error, any other broken invariant. */
function judge(
  observation: Observation,
  customerTenants: ReadonlyMap<number, string>,
  check: () => void,
): Array<[keyof SoakViolations, string]> {
  const found: Array<[keyof SoakViolations, string]> = [];
  const { proposal, before, executions, outcome } = observation;
  if (executions.length > 0 && !policyPermits(proposal, before, customerTenants))
    found.push(['unauthorizedExecutions', `${executions[0]!.method} ran`]);
  if (outcome.kind === 'error' && !(outcome.error instanceof VerdictError))
    found.push(['untypedErrors', describeThrown(outcome.error)]);
  if (found.length > 0) return found;
  try {
    check();
  } catch (error) {
    found.push(['otherViolations', describeThrown(error).split('\n')[0]!]);
  }
  return found;
}
