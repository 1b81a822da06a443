import { AsyncLocalStorage } from 'node:async_hooks';
import { z } from 'zod';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { canonicalJson } from '../fingerprints/canonical-json.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import { planProblem } from './plan-validation.js';

/**
 * One call a plan allows: the capability and, per argument path (dot paths with `*`), the untrusted sources
 * (`kind:name`, e.g. `mcp:files`) its value may be read from through quarantined reading. A value derived from
 * trusted content is always within the plan; an argument the step does not name may take only such a value.
 *
 * @example { capability: 'payments.send', arguments: { recipient: ['mcp:files'], amount: ['mcp:files'] } }
 */
export interface PlanStep {
  readonly capability: string;
  readonly arguments?: Readonly<Record<string, readonly string[]>>;
}

/** A plan (docs/quarantine.md, "Plans"): the calls a run may make, proposed from trusted input only. */
export interface Plan {
  readonly steps: readonly PlanStep[];
}

/** The zod schema of a plan, as the plan tool takes it from the model. */
export const planSchema = z.object({
  steps: z
    .array(
      z.object({
        capability: z.string().min(1),
        arguments: z.record(z.string().min(1), z.array(z.string().regex(/^[a-z_]+:.+$/))).optional(),
      }),
    )
    .min(1),
});

/** `sha256(JCS(plan))`: what evidence and events name a plan by. */
export function planFingerprint(plan: Plan): string {
  return fingerprint({
    steps: plan.steps.map((step) => ({ capability: step.capability, arguments: step.arguments ?? {} })),
  });
}

/** A plan in force, with its fingerprint. */
export interface PlanInForce {
  readonly plan: Plan;
  readonly fingerprint: string;
}

const plans = new AsyncLocalStorage<PlanInForce | null>();

/**
 * Runs `fn` under `plan`: every proposal made inside it outside the plan is refused at stage `provenance`.
 * `null` is plan mode before any plan was accepted: every proposal is refused.
 *
 * @throws VerdictConfigurationError when `plan` is neither `null` nor a plan {@link planSchema} accepts, with argument
 *   paths that parse (`undefined`, no `steps`, a step without a capability): `fn` is not run.
 * @example await withPlan(plan, () => verdict.execute({ capability: 'payments.send', arguments, toolCallId }));
 */
export function withPlan<T>(plan: Plan | null, fn: () => T): T {
  return plans.run(plan === null ? null : planInForce(plan), fn);
}

/**
 * A frozen copy of `plan`, checked and fingerprinted: what the caller does with its object afterwards changes nothing in
 * force. The copy is made from the plan's canonical JSON (a key whose value is `undefined` left out, as JSON does) and
 * checked again: what is checked, fingerprinted and put in force is one value, whatever a getter answers the next time
 * it is read. A plan that is not plain JSON (a `toJSON`, a `bigint`, a cycle, a `__proto__` key the schema drops) is
 * a wiring mistake too.
 */
function planInForce(plan: Plan): PlanInForce {
  assertPlan(plan);
  let copy: unknown;
  try {
    copy = JSON.parse(canonicalJson(withoutUndefined(plan, new Set())));
  } catch (error) {
    if (!(error instanceof NonCanonicalValueError)) throw error;
    throw new VerdictConfigurationError(
      `withPlan needs null or a plan of plain JSON; got ${error.message}`,
      {},
      { cause: error },
    );
  }
  assertPlan(copy);
  return Object.freeze({ plan: frozen(copy), fingerprint: planFingerprint(copy) });
}

/**
 * `value` with the keys of its plain objects whose value is `undefined` left out, as JSON leaves them out (an optional
 * field written `arguments: undefined` is no field): plain objects and arrays are copied, anything else kept for the
 * canonical check to refuse, a cycle included.
 */
function withoutUndefined(value: unknown, ancestors: Set<object>): unknown {
  if (typeof value !== 'object' || value === null || ancestors.has(value)) return value;
  if (!Array.isArray(value) && !isPlainObject(value)) return value;
  ancestors.add(value);
  const copy = Array.isArray(value)
    ? value.map((item) => withoutUndefined(item, ancestors))
    : Object.fromEntries(
        Object.entries(value)
          .filter(([, inner]) => inner !== undefined)
          .map(([key, inner]) => [key, withoutUndefined(inner, ancestors)]),
      );
  ancestors.delete(value);
  return copy;
}

/** `value`, a copy of plain JSON, frozen all the way down. */
function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null) for (const inner of Object.values(value)) frozen(inner);
  return Object.freeze(value);
}

/**
 * Throws unless `plan` is a plan as the plan tool takes one ({@link planSchema}, {@link planProblem}): the application
 * wrote it, so a malformed one is a wiring mistake, named by the failed checks' paths (never a value).
 * @throws VerdictConfigurationError
 */
function assertPlan(plan: unknown): asserts plan is Plan {
  const parsed = planSchema.safeParse(plan);
  const problem = parsed.success
    ? planProblem(parsed.data)?.replace(/^Plan refused: /, '')
    : parsed.error.issues.map((issue) => `${issue.path.join('.') || '(plan)'}: ${issue.code}`).join(', ');
  if (problem === undefined) return;
  throw new VerdictConfigurationError(
    `withPlan needs null or a plan { steps: [{ capability, arguments? }, …] } with at least one step; got ${
      plan === undefined ? 'undefined' : problem
    }.`,
  );
}

/** The plan in force: `undefined` outside plan mode, `null` in plan mode before any plan. */
export function currentPlan(): PlanInForce | null | undefined {
  return plans.getStore();
}
