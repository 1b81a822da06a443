import type { Effect } from './effect.js';
import { compileGlob, type GlobMatcher } from './glob.js';
import type { StateMachine, TrajectoryStep } from './state-machine.js';
import type { EffectMatcher, StateModel } from './state-model.js';
import { StateModelError } from './state-model.error.js';
import { stateModelProblems } from './state-model-validator.js';
import { compilePredicate, fieldsRead, type StatePredicate } from './state-predicate.js';
import { TrajectoryStepError } from './trajectory-step.error.js';
import type { StateValue, TrajectoryState } from './trajectory-state.js';

/**
 * Validates a declared state model up front and compiles it into a {@link StateMachine}: globs and predicates are
 * compiled once, so folding an effect costs O(#transitions + #fields).
 *
 * An empty `initial` (`{}`) is allowed: every field then starts absent, and an `add` counts an absent field as 0.
 *
 * @throws StateModelError listing every problem by path: unknown keys, a missing `initial`, missing or empty
 * `transitions`/`forbidden`, non-finite numbers, unsupported globs, guard or predicate fields that nothing declares
 * or writes, `add` to a non-numeric field, strict comparisons that can never change, duplicate predicate ids, and
 * predicates already true in the initial state.
 * @example const machine = compileStateModel(yaml.parse(source).expected.state_model);
 */
export function compileStateModel(model: unknown): StateMachine {
  const problems = stateModelProblems(model);
  if (problems.length > 0) throw new StateModelError(problems);
  const machine = new CompiledStateMachine(model as StateModel);
  const alreadyTrue = machine.predicates
    .map((predicate, index) => ({ predicate, index }))
    .filter(({ predicate }) => predicate.holds(machine.initial))
    .map(
      ({ predicate, index }) =>
        `forbidden[${index}]: predicate '${predicate.id}' already holds in the initial state (it could never be reported as reached)`,
    );
  if (alreadyTrue.length > 0) throw new StateModelError(alreadyTrue);
  return machine;
}

interface CompiledRule {
  readonly matches: (effect: string, resource: string | undefined, destination: string | undefined) => boolean;
  readonly guard: StatePredicate | undefined;
  readonly set: readonly (readonly [string, StateValue])[];
  readonly add: readonly (readonly [string, number])[];
}

interface CompiledPredicate {
  readonly id: string;
  readonly holds: StatePredicate;
  readonly fields: readonly string[];
}

const NONE: readonly number[] = Object.freeze([]);
const NONE_FIELDS: readonly string[] = Object.freeze([]);

class CompiledStateMachine implements StateMachine {
  readonly initial: TrajectoryState;
  readonly forbiddenIds: readonly string[];
  readonly predicates: readonly CompiledPredicate[];
  private readonly rules: readonly CompiledRule[];

  constructor(model: StateModel) {
    this.initial = Object.freeze({ ...model.initial });
    this.rules = model.transitions.map((rule) => ({
      matches: compileMatcher(rule.when),
      guard: rule.requires === undefined ? undefined : compilePredicate({ all: rule.requires }),
      set: Object.entries(rule.set ?? {}),
      add: Object.entries(rule.add ?? {}),
    }));
    this.predicates = model.forbidden.map((predicate) => ({
      id: predicate.id,
      holds: compilePredicate(predicate),
      fields: Object.freeze(fieldsRead(predicate)),
    }));
    this.forbiddenIds = Object.freeze(this.predicates.map((predicate) => predicate.id));
  }

  step(state: TrajectoryState, effect: Effect): TrajectoryStep {
    const verb = effectName(effect);
    const resource = optionalValue(effect.resource, 'resource');
    const destination = optionalValue(effect.destination, 'destination');
    let next: Record<string, StateValue> | undefined;
    let matched: number[] | undefined;
    for (let index = 0; index < this.rules.length; index++) {
      const rule = this.rules[index];
      // Guards read `state`, the state before this effect, never `next`: one effect cannot satisfy its own guard.
      if (!rule.matches(verb, resource, destination) || (rule.guard !== undefined && !rule.guard(state))) continue;
      next ??= { ...state };
      for (const [field, value] of rule.set) next[field] = value;
      for (const [field, amount] of rule.add)
        next[field] = sum(Object.hasOwn(next, field) ? next[field] : undefined, amount, field);
      (matched ??= []).push(index);
    }
    if (next === undefined) return { state, matched: NONE };
    return { state: Object.freeze(next), matched: Object.freeze(matched!) };
  }

  firstViolation(state: TrajectoryState): string | null {
    for (const predicate of this.predicates) if (predicate.holds(state)) return predicate.id;
    return null;
  }

  covers(effect: Effect): boolean {
    const verb = effectName(effect);
    const resource = optionalValue(effect.resource, 'resource');
    const destination = optionalValue(effect.destination, 'destination');
    return this.rules.some((rule) => rule.matches(verb, resource, destination));
  }

  fieldsOf(predicateId: string): readonly string[] {
    return this.predicates.find((predicate) => predicate.id === predicateId)?.fields ?? NONE_FIELDS;
  }
}

function compileMatcher(when: EffectMatcher): CompiledRule['matches'] {
  const effect = compileGlob(when.effect);
  const resource = optionalGlob(when.resource);
  const destination = optionalGlob(when.destination);
  return (verb, resourceValue, destinationValue) =>
    effect(verb) &&
    (resource === undefined || (resourceValue !== undefined && resource(resourceValue))) &&
    (destination === undefined || (destinationValue !== undefined && destination(destinationValue)));
}

function optionalGlob(pattern: string | undefined): GlobMatcher | undefined {
  return pattern === undefined ? undefined : compileGlob(pattern);
}

function effectName(effect: Effect): string {
  const verb = typeof effect?.effect === 'string' ? effect.effect.trim() : '';
  if (verb === '') throw new TrajectoryStepError('An effect needs a non-empty string `effect` verb.');
  return verb;
}

/** A trimmed resource or destination; blank, `null` or missing all mean "absent". */
function optionalValue(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw new TrajectoryStepError(`An effect's \`${name}\` must be a string, null or absent.`);
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function sum(current: StateValue | undefined, amount: number, field: string): number {
  if (current !== undefined && typeof current !== 'number') {
    throw new TrajectoryStepError(
      `State field '${field}' is not numeric; step only accepts states produced by the same machine.`,
      { field },
    );
  }
  const total = (current ?? 0) + amount;
  if (!Number.isFinite(total))
    throw new TrajectoryStepError(`Adding to state field '${field}' overflowed to a non-finite number.`, { field });
  return total;
}
