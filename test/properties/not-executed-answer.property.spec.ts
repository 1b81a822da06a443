import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Disposition, readNotExecutedMessage } from '@verdict/nestjs';

// The strict reader of Verdict's `not_executed` answer decides what the model-input guard lets through
// unreleased and what the attack pack and the lab count as a refusal. Anything but the exact four fields
// may carry data, so it must read as no answer. These properties generate the answers and their near
// misses; the example-based spec next to the reader lists a handful by hand.

const RUNS = 2_000;
const SEED = process.env.VERDICT_PROPERTY_SEED === undefined ? undefined : Number(process.env.VERDICT_PROPERTY_SEED);
const FIELDS = ['status', 'capability', 'decision', 'message'] as const;
const DISPOSITIONS: readonly string[] = Object.values(Disposition);

type Answer = { status: string; capability: string; decision: string; message: string };

const answers: fc.Arbitrary<Answer> = fc.record({
  status: fc.constant('not_executed'),
  capability: fc.oneof(fc.constantFrom('orders.view', 'orders.cancel', ''), fc.string()),
  decision: fc.constantFrom(...DISPOSITIONS),
  message: fc.oneof(fc.constant('I could not do that.'), fc.string()),
});

/** Writes `value` as JSON text with its keys in `order` (a permutation), compact or indented. */
function text(value: Record<string, unknown>, order: readonly number[], indent: 0 | 2): string {
  const keys = Object.keys(value);
  const permuted = order.map((i) => keys[i % keys.length]).filter((key, i, all) => all.indexOf(key) === i);
  const ordered = Object.fromEntries(
    [...permuted, ...keys.filter((key) => !permuted.includes(key))].map((key) => [key, value[key]]),
  );
  return JSON.stringify(ordered, null, indent);
}

const layouts = fc.record({ order: fc.array(fc.nat(), { maxLength: 8 }), indent: fc.constantFrom<0 | 2>(0, 2) });

/** A value that is not a string. */
const nonStrings = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
);

/** Keys other than the four, including the ones JSON.parse keeps as own keys although they name prototype slots. */
const extraKeys = fc
  .oneof(
    fc.constantFrom(
      'reason',
      'output',
      'customer',
      'email',
      '__proto__',
      'constructor',
      'Status',
      'status ',
      'decision\u0000',
    ),
    fc.string(),
  )
  .filter((key) => !(FIELDS as readonly string[]).includes(key));

/** One change that makes an answer something else; applied to the parsed-back value as JSON text. */
const corruptions: fc.Arbitrary<(answer: Answer, layout: { order: number[]; indent: 0 | 2 }) => string> = fc.oneof(
  fc.tuple(extraKeys, fc.jsonValue({ maxDepth: 2 })).map(
    ([key, value]) =>
      (answer: Answer, { indent }: { indent: 0 | 2 }) =>
        // Built as text, so `__proto__` stays an own key as a model's JSON would carry it.
        `${JSON.stringify(answer, null, indent).slice(0, -1).trimEnd()},${JSON.stringify(key)}:${JSON.stringify(value)}}`,
  ),
  fc.constantFrom(...FIELDS).map((field) => (answer: Answer, { order, indent }: { order: number[]; indent: 0 | 2 }) => {
    const { [field]: _dropped, ...rest } = answer;
    return text(rest, order, indent);
  }),
  fc
    .oneof(
      nonStrings,
      fc.string().filter((status) => status !== 'not_executed'),
    )
    .map(
      (status) =>
        (answer: Answer, { order, indent }: { order: number[]; indent: 0 | 2 }) =>
          text({ ...answer, status }, order, indent),
    ),
  fc.tuple(fc.constantFrom('capability', 'message'), nonStrings).map(
    ([field, value]) =>
      (answer: Answer, { order, indent }: { order: number[]; indent: 0 | 2 }) =>
        text({ ...answer, [field]: value }, order, indent),
  ),
  fc
    .oneof(
      nonStrings,
      fc.string().filter((decision) => !DISPOSITIONS.includes(decision)),
      fc.constantFrom('Deny', 'deny ', 'DENY', 'executed'),
    )
    .map(
      (decision) =>
        (answer: Answer, { order, indent }: { order: number[]; indent: 0 | 2 }) =>
          text({ ...answer, decision }, order, indent),
    ),
  fc.constant((answer: Answer) => JSON.stringify([answer])),
  fc.constant((answer: Answer) => JSON.stringify({ answer })),
  fc
    .constantFrom('x', '}', ', "reason": "x"', '\n{"a":1}')
    .map((tail) => (answer: Answer) => `${JSON.stringify(answer)}${tail}`),
);

describe('readNotExecutedMessage', () => {
  it(`reads back every answer Verdict can write, in any key order and layout (${RUNS} answers)`, () => {
    fc.assert(
      fc.property(answers, layouts, (answer, { order, indent }) => {
        expect(readNotExecutedMessage(text(answer, order, indent))).toEqual(answer);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it(`reads an answer with one field added, dropped, retyped or reworded, or wrapped, as no answer (${RUNS} near misses)`, () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(answers, layouts, corruptions, (answer, layout, corrupt) => {
        const changed = corrupt(answer, layout);
        seen.add(changed);
        expect(readNotExecutedMessage(changed)).toBeNull();
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(seen.size).toBeGreaterThan(RUNS / 2);
  });
});
