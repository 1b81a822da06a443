import { NonCanonicalValueError, StateModelError, canonicalJson, compileStateModel } from '@verdict/nestjs';
import type { JsonValue } from '@verdict/nestjs';

/** A state model as a built-in fold keeps it: a frozen copy, and its canonical JSON text (what its id names). */
export interface FrozenStateModel {
  /** A deep-frozen plain JSON copy of the model: what every run folds, whatever the caller changes afterwards. */
  readonly model: JsonValue;
  /** The copy's canonical JSON (RFC 8785): the same text for the same model, however its keys were ordered. */
  readonly canonical: string;
}

/**
 * Validates `stateModel` and copies it once (ADR 0200): the canonical JSON text is parsed back and frozen deep, and
 * the copy is validated again, so what a fold runs is what was checked and named, and a caller changing its model
 * (or a getter answering something else later) changes nothing kept.
 *
 * @throws StateModelError for a model `compileStateModel` refuses, or one that is not plain JSON (a `Date`, an
 *   `undefined` value, a cycle), naming the path
 */
export function frozenStateModel(stateModel: unknown): FrozenStateModel {
  compileStateModel(stateModel);
  let canonical: string;
  try {
    canonical = canonicalJson(stateModel);
  } catch (error) {
    if (error instanceof NonCanonicalValueError) throw new StateModelError([`${error.path}: ${error.problem}`]);
    throw error;
  }
  const model = deepFrozen(JSON.parse(canonical) as JsonValue);
  compileStateModel(model);
  return { model, canonical };
}

function deepFrozen(value: JsonValue): JsonValue {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFrozen(item);
    Object.freeze(value);
  }
  return value;
}
