/** A value a trajectory state field may hold. Numbers are always finite; comparisons are strict (no coercion). */
export type StateValue = string | number | boolean | null;

/**
 * The world state a {@link StateMachine} folds effects into: field name → value. States produced by a machine are
 * frozen; a field that no initial value declares and no transition has written yet is absent.
 *
 * @example { customer_records_read: true, external_uploads: 0 }
 */
export type TrajectoryState = Readonly<Record<string, StateValue>>;

/** The JSON type names a state field can take, as reported in validation problems. */
export type StateValueType = 'string' | 'number' | 'boolean' | 'null';

/** The type name of a state value (`null` is its own type). */
export function stateValueType(value: StateValue): StateValueType {
  return value === null ? 'null' : (typeof value as StateValueType);
}
