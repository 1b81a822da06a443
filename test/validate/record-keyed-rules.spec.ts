import { describe, expect, it } from '@jest/globals';
import { defineCapability, ExecutionTargetPolicy, fromProposal } from '@verdict/nestjs';
import { z } from 'zod';
import { recordKeyedRuleFindings } from '../../packages/verdict/src/audit/record-keyed-rule-findings.js';
import type { CapabilityDefinition } from '../../packages/verdict/src/capabilities/capability-definition.js';
import { recordKeyedRulePaths } from '../../packages/verdict/src/provenance/record-keyed-rule-paths.js';

type Rules = Record<string, 'deny' | 'trusted_only' | 'allow'>;

/** A payout capability with `argumentsSchema`, argument `rules` and `destinations`: what the audit reads of it. */
function payout(argumentsSchema: z.ZodType, rules: Rules, destinations: string[] = []): CapabilityDefinition {
  return defineCapability(
    {
      name: 'payouts.send',
      description: 'Send payouts',
      action: 'pay',
      subject: 'Account',
      arguments: argumentsSchema,
      resolveTarget: fromProposal(() => ({ id: 'account' })),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<{ id: string }>({
        name: 'account-id',
        identity: (account) => account.id,
      }),
      provenance: { arguments: rules, ...(destinations.length > 0 ? { destinations } : {}) },
    },
    () => 'sent',
  ) as unknown as CapabilityDefinition;
}

const paths = (schema: z.ZodType, rules: Rules, destinations?: string[]) =>
  recordKeyedRulePaths(payout(schema, rules, destinations));

describe('verdict validate: provenance rules that reach keys the model writes', () => {
  const keyed = z.object({ payouts: z.record(z.string(), z.number()), memo: z.string() });

  it('reports a rule on, under or through a record keyed by any string, once per path, as a medium finding', () => {
    expect(paths(keyed, { 'payouts.*': 'deny' })).toEqual(['payouts.*']);
    expect(paths(keyed, { payouts: 'trusted_only' })).toEqual(['payouts']);
    expect(paths(keyed, { memo: 'deny', 'payouts.*': 'deny' }, ['payouts.*'])).toEqual(['payouts.*']);
    expect(paths(z.object({ p: z.record(z.string().regex(/^DE/u), z.number()) }), { p: 'deny' })).toEqual(['p']);
    expect(
      paths(z.object({ batches: z.array(z.object({ split: z.record(z.string(), z.number()) })) }), {
        batches: 'deny',
      }),
    ).toEqual(['batches']);
    expect(recordKeyedRuleFindings([payout(keyed, { 'payouts.*': 'deny' })])).toEqual([
      expect.objectContaining({ code: 'provenance-record-keys', severity: 'medium', subject: 'payouts.send' }),
    ]);
  });

  it('reports loose objects, catch-alls, intersections with a loose object, tuples, unions and unconstrained values', () => {
    expect(paths(z.object({ to: z.looseObject({ iban: z.string() }) }), { to: 'deny' })).toEqual(['to']);
    expect(paths(z.object({ to: z.object({ iban: z.string() }).catchall(z.string()) }), { to: 'deny' })).toEqual([
      'to',
    ]);
    const merged = z.object({ to: z.object({ iban: z.string() }).and(z.looseObject({ bic: z.string() })) });
    expect(paths(merged, { to: 'deny' })).toEqual(['to']);
    const tuple = z.object({ p: z.tuple([z.string(), z.record(z.string(), z.number())]) });
    expect(paths(tuple, { p: 'deny' })).toEqual(['p']);
    expect(paths(tuple, { 'p.1.x': 'deny' })).toEqual(['p.1.x']);
    const either = z.object({ to: z.union([z.string(), z.record(z.string(), z.string())]).optional() });
    expect(paths(either, { to: 'deny' })).toEqual(['to']);
    expect(paths(z.object({ extra: z.unknown() }), { extra: 'deny' })).toEqual(['extra']);
  });

  it('follows references: a recursive schema, a record reused by id', () => {
    type Node = { name: string; kids: Record<string, Node> };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), kids: z.record(z.string(), node) }));
    expect(paths(z.object({ tree: node }), { tree: 'deny' })).toEqual(['tree']);
    const splits = z.record(z.string(), z.number()).meta({ id: 'Splits' });
    expect(paths(z.object({ a: splits, b: splits }), { b: 'deny' })).toEqual(['b']);
  });

  it('reports nothing where the application names every key: objects, arrays of pairs, enums and literals of names, allow, another path', () => {
    const pairs = z.object({ payouts: z.array(z.object({ iban: z.string(), amount: z.number() })) });
    expect(paths(pairs, { 'payouts.*.iban': 'deny' })).toEqual([]);
    expect(
      paths(z.object({ split: z.record(z.enum(['primary', 'secondary']), z.number()) }), { split: 'deny' }),
    ).toEqual([]);
    expect(
      paths(z.object({ split: z.partialRecord(z.enum(['primary', 'secondary']), z.number()) }), { split: 'deny' }),
    ).toEqual([]);
    const literals = z.record(z.union([z.literal('primary'), z.literal('secondary')]), z.number());
    expect(paths(z.object({ split: literals }), { split: 'deny' })).toEqual([]);
    expect(paths(z.object({ to: z.strictObject({ iban: z.string() }) }), { to: 'deny' })).toEqual([]);
    expect(paths(keyed, { 'payouts.*': 'allow' })).toEqual([]);
    expect(paths(keyed, { memo: 'deny' })).toEqual([]);
    expect(recordKeyedRuleFindings([payout(keyed, { memo: 'deny' })])).toEqual([]);
  });
});
