/** What a soak counts; every count must stay 0. */
export interface SoakViolations {
  /** More than one execution claim admitted for one key. */
  doubleAdmissions: number;
  /** More than one process consumed one approved receipt. */
  doubleConsumptions: number;
  /** More than one of racing approvals and rejections applied to one pending receipt. */
  doubleDecisions: number;
  /** More rate-limit units, spend-budget amounts or trajectory steps admitted than the limit allows. */
  overAdmissions: number;
  /** Fewer admitted than the gate must admit (a round no process won, a limit not reached). */
  underAdmissions: number;
  /** A proposal's executor ran although the policy, written without Verdict, forbids it. */
  unauthorizedExecutions: number;
  /** A thrown value that is not a `VerdictError`. */
  untypedErrors: number;
  /** A typed error where none may occur (a gate call in a race), or any other broken invariant. */
  otherViolations: number;
}

/** All counts at 0. */
export function noViolations(): SoakViolations {
  return {
    doubleAdmissions: 0,
    doubleConsumptions: 0,
    doubleDecisions: 0,
    overAdmissions: 0,
    underAdmissions: 0,
    unauthorizedExecutions: 0,
    untypedErrors: 0,
    otherViolations: 0,
  };
}

/** Adds `more` into `into`. */
export function addViolations(into: SoakViolations, more: SoakViolations): void {
  for (const key of Object.keys(into) as Array<keyof SoakViolations>) into[key] += more[key];
}

/** The total of every count. */
export function violationCount(violations: SoakViolations): number {
  return Object.values(violations).reduce((sum, count) => sum + count, 0);
}

/** The counts that are not 0 as `name n` pairs, for one printed line; `no violations` when all are. */
export function describeViolations(violations: SoakViolations): string {
  const found = Object.entries(violations).filter(([, count]) => count > 0);
  if (found.length === 0) return 'no violations';
  return found
    .map(([name, count]) => `${name.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`)} ${count}`)
    .join(', ');
}
