import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { compileStateModel } from './compile-state-model.js';
import type { Effect } from './effect.js';
import { compileGlob } from './glob.js';
import type { StateValue } from './trajectory-state.js';

/** A reference glob: `*` → `.*` over a regular expression, everything else escaped. */
function referenceGlob(pattern: string, value: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+^${}()|[\]\\?]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's').test(value);
}

// An independent, deliberately naive interpreter of the declared model (no compilation, mutable copies).
type Node = Record<string, any>;
type Model = { initial: Record<string, StateValue>; transitions: Node[]; forbidden: Node[] };

function holds(node: Node, state: Record<string, StateValue>): boolean {
  if (node.all) return node.all.every((part: Node) => holds(part, state));
  if (node.any) return node.any.some((part: Node) => holds(part, state));
  if (node.not) return !holds(node.not, state);
  if (!(node.field in state)) return false;
  const value = state[node.field];
  if ('equals' in node) return value === node.equals;
  if ('not_equals' in node) return value !== node.not_equals;
  if ('greater_than' in node) return typeof value === 'number' && value > node.greater_than;
  if ('less_than' in node) return typeof value === 'number' && value < node.less_than;
  return typeof value === 'string' && referenceGlob(node.matches, value);
}

function present(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function referenceStep(
  model: Model,
  state: Record<string, StateValue>,
  effect: Effect,
): { state: Record<string, StateValue>; matched: number[] } {
  const before = { ...state };
  const next = { ...state };
  const matched: number[] = [];
  model.transitions.forEach((rule, index) => {
    const resource = present(effect.resource);
    const destination = present(effect.destination);
    if (!referenceGlob(rule.when.effect, effect.effect.trim())) return;
    if (rule.when.resource !== undefined && (resource === undefined || !referenceGlob(rule.when.resource, resource)))
      return;
    if (
      rule.when.destination !== undefined &&
      (destination === undefined || !referenceGlob(rule.when.destination, destination))
    )
      return;
    if (rule.requires && !rule.requires.every((node: Node) => holds(node, before))) return;
    for (const [field, value] of Object.entries(rule.set ?? {})) next[field] = value as StateValue;
    for (const [field, amount] of Object.entries(rule.add ?? {}))
      next[field] = ((next[field] as number | undefined) ?? 0) + (amount as number);
    matched.push(index);
  });
  return { state: next, matched };
}

// Fields: flag (boolean), count (number), host (string), ticks (number, written by add only).
const condition: fc.Arbitrary<Node> = fc.oneof(
  fc.record({ field: fc.constant('flag'), equals: fc.boolean() }),
  fc.record({ field: fc.constant('flag'), not_equals: fc.boolean() }),
  fc.record({ field: fc.constantFrom('count', 'ticks'), greater_than: fc.integer({ min: -3, max: 4 }) }),
  fc.record({ field: fc.constantFrom('count', 'ticks'), less_than: fc.integer({ min: -3, max: 4 }) }),
  fc.record({ field: fc.constant('count'), equals: fc.integer({ min: -2, max: 3 }) }),
  fc.record({ field: fc.constant('host'), matches: fc.constantFrom('ext*', '*', 'none', '*al') }),
  fc.record({ field: fc.constant('host'), not_equals: fc.constantFrom('none', 'internal') }),
);
const node: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    condition,
    fc.record({ all: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ any: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: tie('node') }),
  ),
})).node;

const effectNames = ['read', 'export', 'upload', 'send'];
const rule: fc.Arbitrary<Node> = fc
  .record(
    {
      when: fc.record(
        {
          effect: fc.constantFrom(...effectNames, '*', 'up*', '*d'),
          resource: fc.constantFrom('crm/*', 'exports/*', '*', 'links/x'),
          destination: fc.constantFrom('external:*', 'internal:*', '*'),
        },
        { requiredKeys: ['effect'] },
      ),
      requires: fc.array(node, { minLength: 1, maxLength: 2 }),
      set: fc.oneof(
        fc.record({ flag: fc.boolean() }),
        fc.record({ host: fc.constantFrom('none', 'external', 'internal') }),
      ),
      add: fc.oneof(fc.record({ count: fc.integer({ min: -3, max: 3 }) }), fc.record({ ticks: fc.constant(1) })),
    },
    { requiredKeys: ['when'] },
  )
  .filter((candidate) => candidate.set !== undefined || candidate.add !== undefined);

const initial = { flag: false, count: 0, host: 'none' };
// `ticks` is absent initially: conjoining `ticks > 0` keeps a predicate that would already hold initially valid.
const ticked: Node = { field: 'ticks', greater_than: 0 };
const model: fc.Arbitrary<Model> = fc.record({
  initial: fc.constant(initial),
  transitions: fc
    .array(rule, { minLength: 1, maxLength: 5 })
    .map((rules) => [...rules, { when: { effect: 'send' }, add: { ticks: 1 } }]),
  forbidden: fc.array(node, { minLength: 1, maxLength: 3 }).map((nodes) =>
    nodes.map((predicate, index) => ({
      id: `p${index}`,
      all: holds(predicate, initial) ? [predicate, ticked] : [predicate],
    })),
  ),
});

const effect: fc.Arbitrary<Effect> = fc.record(
  {
    effect: fc.constantFrom(...effectNames, 'delete', ' upload '),
    resource: fc.constantFrom(null, '', 'crm/customers/1', 'exports/a.csv', ' exports/b ', 'links/x'),
    destination: fc.constantFrom(null, '  ', 'external:host', 'internal:share', 'elsewhere'),
  },
  { requiredKeys: ['effect'] },
);

describe('StateMachine properties', () => {
  it('compiled globs agree with a regular-expression reference', () => {
    const text = (chars: string[]) =>
      fc.array(fc.constantFrom(...chars), { maxLength: 8 }).map((list) => list.join(''));
    fc.assert(
      fc.property(text(['a', 'b', '/', '*', '.']), text(['a', 'b', '/', '.']), (pattern, value) => {
        expect(compileGlob(pattern)(value)).toBe(referenceGlob(pattern, value));
      }),
      { numRuns: 2000 },
    );
  });

  it('folding with step equals a naive re-computation, step by step, and never mutates its input', () => {
    fc.assert(
      fc.property(model, fc.array(effect, { maxLength: 30 }), (candidate, effects) => {
        const machine = compileStateModel(candidate);
        let state = machine.initial;
        let reference: Record<string, StateValue> = { ...candidate.initial };
        for (const next of effects) {
          const snapshot = JSON.stringify(state);
          const step = machine.step(state, next);
          const expected = referenceStep(candidate, reference, next);
          expect(JSON.stringify(state)).toBe(snapshot);
          expect(step.matched).toEqual(expected.matched);
          expect(step.state).toEqual(expected.state);
          const firstHolding = candidate.forbidden.find((predicate) => holds(predicate, expected.state));
          expect(machine.firstViolation(step.state)).toBe(firstHolding?.id ?? null);
          state = step.state;
          reference = expected.state;
        }
      }),
      { numRuns: 300 },
    );
  });
});
