import { compileGlob } from './glob.js';
import type { PredicateNode } from './state-model.js';
import type { TrajectoryState } from './trajectory-state.js';

/** A compiled predicate over a trajectory state. */
export type StatePredicate = (state: TrajectoryState) => boolean;

/** Compiles a validated predicate node (condition, `all`, `any` or `not`) into a closure; globs are compiled once, here. */
export function compilePredicate(node: PredicateNode): StatePredicate {
  if ('all' in node) {
    const parts = node.all.map(compilePredicate);
    return (state) => parts.every((part) => part(state));
  }
  if ('any' in node) {
    const parts = node.any.map(compilePredicate);
    return (state) => parts.some((part) => part(state));
  }
  if ('not' in node) {
    const inner = compilePredicate(node.not);
    return (state) => !inner(state);
  }
  const { field } = node;
  if ('equals' in node) {
    const expected = node.equals;
    return (state) => Object.hasOwn(state, field) && state[field] === expected;
  }
  if ('not_equals' in node) {
    const excluded = node.not_equals;
    return (state) => Object.hasOwn(state, field) && state[field] !== excluded;
  }
  if ('greater_than' in node) {
    const bound = node.greater_than;
    return (state) => Object.hasOwn(state, field) && typeof state[field] === 'number' && state[field] > bound;
  }
  if ('less_than' in node) {
    const bound = node.less_than;
    return (state) => Object.hasOwn(state, field) && typeof state[field] === 'number' && state[field] < bound;
  }
  const matches = compileGlob(node.matches);
  return (state) => {
    const value = Object.hasOwn(state, field) ? state[field] : undefined;
    return typeof value === 'string' && matches(value);
  };
}

/** The state fields a predicate node reads, in first-mention order, without duplicates. */
export function fieldsRead(node: PredicateNode, into: string[] = []): string[] {
  if ('all' in node) for (const part of node.all) fieldsRead(part, into);
  else if ('any' in node) for (const part of node.any) fieldsRead(part, into);
  else if ('not' in node) fieldsRead(node.not, into);
  else if (!into.includes(node.field)) into.push(node.field);
  return into;
}
