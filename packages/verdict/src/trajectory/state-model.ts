import type { StateValue } from './trajectory-state.js';

/**
 * The declared state model of a `forbidden_state_not_reached` assertion (the OWASP Agent Security Regression Harness
 * shape under `expected.state_model`, plus `any` / `not` groups). Validate and compile it with `compileStateModel`.
 *
 * @example
 * {
 *   initial: { records_read: false, external_uploads: 0 },
 *   transitions: [
 *     { when: { effect: 'read', resource: 'crm/customers/*' }, set: { records_read: true } },
 *     { when: { effect: 'upload', destination: 'external:*' }, requires: [{ field: 'records_read', equals: true }], add: { external_uploads: 1 } },
 *   ],
 *   forbidden: [{ id: 'customer_data_uploaded_externally', all: [{ field: 'external_uploads', greater_than: 0 }] }],
 * }
 */
export interface StateModel {
  /** Starting values of the declared fields. */
  readonly initial: Readonly<Record<string, StateValue>>;
  /** Non-empty; every rule whose `when` matches an effect (and whose guard holds) applies, in declaration order. */
  readonly transitions: readonly TransitionRule[];
  /** Non-empty; checked in declaration order after every transition. */
  readonly forbidden: readonly ForbiddenPredicate[];
}

/** One transition rule: which effects it matches, an optional guard, and the writes it makes (`set` first, then `add`). */
export interface TransitionRule {
  readonly when: EffectMatcher;
  /** Conjunction evaluated against the state *before* the effect; the rule applies only when every entry holds. */
  readonly requires?: readonly PredicateNode[];
  /** Constant assignments. */
  readonly set?: Readonly<Record<string, StateValue>>;
  /** Numeric increments (a field not yet present counts as 0). */
  readonly add?: Readonly<Record<string, number>>;
}

/** Globs over an effect (`*` is the only wildcard; case-sensitive). `resource` / `destination`, when given, must be present on the effect. */
export interface EffectMatcher {
  readonly effect: string;
  readonly resource?: string;
  readonly destination?: string;
}

/** The comparison operators of a {@link Condition}, exactly one per condition. */
export const CONDITION_OPERATORS = ['equals', 'not_equals', 'greater_than', 'less_than', 'matches'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/**
 * A test of one state field. A condition on a field that is absent from the state never holds. `equals` /
 * `not_equals` compare strictly (a boolean never equals a number); `greater_than` / `less_than` hold only for numeric
 * values; `matches` is a `*` glob over string values.
 */
export type Condition = { readonly field: string } & (
  | { readonly equals: StateValue }
  | { readonly not_equals: StateValue }
  | { readonly greater_than: number }
  | { readonly less_than: number }
  | { readonly matches: string }
);

/** The logical groups a predicate may nest; `any` and `not` go beyond the peer harness vocabulary. */
export type PredicateGroup =
  | { readonly all: readonly PredicateNode[] }
  | { readonly any: readonly PredicateNode[] }
  | { readonly not: PredicateNode };

/** A condition or a logical group of further nodes. */
export type PredicateNode = Condition | PredicateGroup;

/** A world state that must never be reached, named by a unique `id`. */
export type ForbiddenPredicate = { readonly id: string } & PredicateGroup;
