import { describe, expect, it } from '@jest/globals';
import { defineCapability, ExecutionTargetPolicy, fromProposal } from '@verdict/nestjs';
import { z } from 'zod';
import { recordKeyedRuleFindings } from '../../packages/verdict/src/audit/record-keyed-rule-findings.js';
import type { CapabilityDefinition } from '../../packages/verdict/src/capabilities/capability-definition.js';

/** A payout capability with `argumentsSchema` and `rules`: what the audit reads of it. */
function payout(argumentsSchema: z.ZodType, rules: Record<string, 'deny' | 'trusted_only' | 'allow'>) {
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
      provenance: { arguments: rules },
    },
    () => 'sent',
  ) as unknown as CapabilityDefinition;
}

const pathsOf = (definition: CapabilityDefinition) =>
  recordKeyedRuleFindings([definition]).flatMap((finding) =>
    [...finding.message.matchAll(/"([^"]+)"/g)].map((m) => m[1]),
  );

describe('verdict validate: provenance rules that reach keys the model writes', () => {
  it('reports a rule on, under or through a record keyed by the model, naming the rule paths', () => {
    const keyed = z.object({ payouts: z.record(z.string(), z.number()), memo: z.string() });

    expect(pathsOf(payout(keyed, { 'payouts.*': 'deny' }))).toEqual(['payouts.send', 'payouts.*']);
    expect(pathsOf(payout(keyed, { payouts: 'trusted_only' }))).toEqual(['payouts.send', 'payouts']);
    // A loose object's extra keys are the model's too.
    expect(pathsOf(payout(z.object({ to: z.looseObject({ iban: z.string() }) }), { to: 'deny' }))).toEqual([
      'payouts.send',
      'to',
    ]);
    // A record below an array below the rule.
    const nested = z.object({ batches: z.array(z.object({ split: z.record(z.string(), z.number()) })) });
    expect(pathsOf(payout(nested, { batches: 'deny' }))).toEqual(['payouts.send', 'batches']);
    expect(recordKeyedRuleFindings([payout(keyed, { 'payouts.*': 'deny' })])[0]).toMatchObject({
      code: 'provenance-record-keys',
      severity: 'medium',
      subject: 'payouts.send',
    });
  });

  it('reports nothing where every key is declared: an object, an array of pairs, an enum of names, an allow rule, another path', () => {
    const pairs = z.object({ payouts: z.array(z.object({ iban: z.string(), amount: z.number() })) });
    const named = z.object({ split: z.record(z.enum(['primary', 'secondary']), z.number()) });
    const keyed = z.object({ payouts: z.record(z.string(), z.number()), memo: z.string() });

    expect(recordKeyedRuleFindings([payout(pairs, { 'payouts.*.iban': 'deny' })])).toEqual([]);
    expect(recordKeyedRuleFindings([payout(named, { split: 'deny' })])).toEqual([]);
    expect(recordKeyedRuleFindings([payout(keyed, { 'payouts.*': 'allow' })])).toEqual([]);
    expect(recordKeyedRuleFindings([payout(keyed, { memo: 'deny' })])).toEqual([]);
  });
});
