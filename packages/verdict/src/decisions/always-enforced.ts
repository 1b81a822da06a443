import type { Decision } from './decision.js';

const ENFORCED = new WeakSet<Decision>();

/**
 * Marks `refusal` as one shadow mode never softens although its step may be softened (docs/shadow-mode.md, ADR 0098):
 * a refusal of integrity, not of policy — at CASL's step, a target that is not an object or is of another subject
 * type than the capability's. Answers `refusal`.
 */
export function alwaysEnforced(refusal: Decision): Decision {
  ENFORCED.add(refusal);
  return refusal;
}

/** Whether `decision` was marked {@link alwaysEnforced}. */
export function isAlwaysEnforced(decision: Decision): boolean {
  return ENFORCED.has(decision);
}
