import type { JsonValue } from '@verdict/nestjs';
import type { Assertion } from '../assertions/assertion.js';
import { isBuiltIn, reservedNameOf } from '../assertions/built-in-assertion.js';
import { CaseInput, type CaseInputInit } from './case-input.js';
import { CasePurpose } from './case-purpose.js';
import type { CaseRunner } from './case-runner.js';
import { EvaluationCaseError } from './evaluation-case.error.js';
import { isIdentifier, isVersion } from './evaluation-identifier.js';

/** The assertion ids each case read when it was defined, by case: kept out of the caller's reach (ADR 0200). */
const checkedIds = new WeakMap<EvaluationCase, readonly string[]>();

/**
 * The ids `evaluationCase`'s assertions had when it was defined, in the order of `assertions`: what its report names.
 * Not exported from the package.
 */
export function assertionIdsOf(evaluationCase: EvaluationCase): readonly string[] {
  const ids = checkedIds.get(evaluationCase);
  if (ids === undefined)
    throw new EvaluationCaseError(
      'the case was not made by EvaluationCase.attack, utility or pending',
      evaluationCase.id,
    );
  return ids;
}

/**
 * One deterministic evaluation case: an id and version, a purpose, a fingerprinted input, a runner that
 * produces an {@link Observation} and the assertions that judge it. Definitions are checked here, so a
 * malformed case fails when the suite is built, not halfway through a run.
 *
 * Ids use letters, digits and `. _ : / -` (they appear in reports verbatim); versions are strings such as
 * `'1'` or `'2025-06-01'`, compared exactly. A runnable case needs at least one assertion, with unique ids; an id
 * of a built-in (`not-executed`, `decision-is:…`) only on the built-in assertion itself.
 *
 * @example
 * EvaluationCase.attack('cross-customer-order', '1',
 *   { trustedSetup: { actorId: 72 }, untrustedInput: { orderId: 1001 } },
 *   async (input) => { ... return Observation.fromExecutionResult(result, proposal); },
 *   [Assertions.decisionIs(Disposition.Deny), Assertions.notExecuted(), Assertions.noSideEffects()],
 * );
 */
export class EvaluationCase {
  private constructor(
    readonly id: string,
    readonly version: string,
    readonly purpose: CasePurpose,
    /** `null` only for a pending case declared without an input. */
    readonly input: CaseInput<unknown, unknown> | null,
    /** `null` for a pending case. */
    readonly runner: CaseRunner<any, any> | null,
    /**
     * The assertions as the case was given them, in order: the caller's own objects (class, identity and any other
     * property kept), in an array of the case's own that is frozen. A report names each by the id the case read
     * when it was defined: an id that reads otherwise later (a getter, an assignment) changes nothing reported.
     */
    readonly assertions: readonly Assertion[],
    assertionIds: readonly string[],
  ) {
    checkedIds.set(this, assertionIds);
  }

  /** A case that measures containment: the attack must not succeed. */
  static attack<TSetup = JsonValue, TUntrusted = JsonValue>(
    id: string,
    version: string,
    input: CaseInputInit<TSetup, TUntrusted> | CaseInput<TSetup, TUntrusted>,
    runner: CaseRunner<TSetup, TUntrusted>,
    assertions: readonly Assertion[],
  ): EvaluationCase {
    return EvaluationCase.runnable(CasePurpose.Attack, id, version, input, runner, assertions);
  }

  /** A case that measures legitimate task success: the permitted work must still happen. */
  static utility<TSetup = JsonValue, TUntrusted = JsonValue>(
    id: string,
    version: string,
    input: CaseInputInit<TSetup, TUntrusted> | CaseInput<TSetup, TUntrusted>,
    runner: CaseRunner<TSetup, TUntrusted>,
    assertions: readonly Assertion[],
  ): EvaluationCase {
    return EvaluationCase.runnable(CasePurpose.Utility, id, version, input, runner, assertions);
  }

  /**
   * A case that is declared but not runnable yet: counted as pending in its purpose's score and never run.
   * The input is optional; when given it is fingerprinted like any other.
   */
  static pending(
    purpose: CasePurpose,
    id: string,
    version: string,
    input?: CaseInputInit<unknown, unknown> | CaseInput<unknown, unknown>,
  ): EvaluationCase {
    checkHead(purpose, id, version);
    return new EvaluationCase(
      id,
      version,
      purpose,
      input === undefined ? null : CaseInput.of(input),
      null,
      Object.freeze([]),
      Object.freeze([]),
    );
  }

  /** Whether the case is pending (never run). */
  get pending(): boolean {
    return this.runner === null;
  }

  private static runnable<TSetup, TUntrusted>(
    purpose: CasePurpose,
    id: string,
    version: string,
    input: CaseInputInit<TSetup, TUntrusted> | CaseInput<TSetup, TUntrusted>,
    runner: CaseRunner<TSetup, TUntrusted>,
    assertions: readonly Assertion[],
  ): EvaluationCase {
    checkHead(purpose, id, version);
    if (typeof runner !== 'function')
      throw new EvaluationCaseError(
        'the runner must be a function (declare the case with EvaluationCase.pending until it can run)',
        id,
      );
    const checked = checkAssertions(id, assertions);
    return new EvaluationCase(
      id,
      version,
      purpose,
      CaseInput.of(input),
      runner,
      Object.freeze(checked.map(({ assertion }) => assertion)),
      Object.freeze(checked.map(({ assertionId }) => assertionId)),
    );
  }
}

function checkHead(purpose: CasePurpose, id: string, version: string): void {
  if (!isIdentifier(id))
    throw new EvaluationCaseError(
      'the id must be 1-200 characters of letters, digits and . _ : / - (starting with a letter or digit)',
    );
  if (!isVersion(version))
    throw new EvaluationCaseError(
      "the version must be a string of 1-64 letters, digits and . _ + - (e.g. '1' or '2025-06-01')",
      id,
    );
  if (purpose !== CasePurpose.Attack && purpose !== CasePurpose.Utility)
    throw new EvaluationCaseError("the purpose must be 'attack' or 'utility'", id);
}

/**
 * The case's assertions, checked once: each id read once and kept beside the assertion, which is kept as it was given
 * (nothing of the caller's is frozen or wrapped). The report names the id read here, so an id that changes afterwards
 * (a getter) cannot slip a built-in's id into the report.
 */
function checkAssertions(
  id: string,
  assertions: readonly Assertion[],
): Array<{ readonly assertion: Assertion; readonly assertionId: string }> {
  if (!Array.isArray(assertions) || assertions.length === 0) {
    throw new EvaluationCaseError(
      'a runnable case needs at least one assertion: a case without assertions cannot fail',
      id,
    );
  }
  const seen = new Set<string>();
  const checked: Array<{ readonly assertion: Assertion; readonly assertionId: string }> = [];
  for (const assertion of assertions as unknown[]) {
    const assertionId: unknown =
      typeof assertion === 'object' && assertion !== null ? (assertion as Assertion).id : null;
    if (
      typeof assertion !== 'object' ||
      assertion === null ||
      typeof (assertion as Assertion).evaluate !== 'function' ||
      !isIdentifier(assertionId)
    ) {
      throw new EvaluationCaseError('every assertion must have a valid id and an evaluate(observation) method', id);
    }
    const given = assertion as Assertion;
    // A report's `not-executed` must be the built-in that ran (ADR 0200): a hand-written object, a copy or a
    // proxy of a built-in may not carry a built-in's id, or it would keep the claim while judging nothing.
    if (reservedNameOf(assertionId) !== null && !isBuiltIn(given))
      throw new EvaluationCaseError(
        `the assertion id "${assertionId}" belongs to a built-in assertion: only the built-in itself may use it`,
        id,
      );
    if (seen.has(assertionId)) throw new EvaluationCaseError(`the assertion id "${assertionId}" appears twice`, id);
    seen.add(assertionId);
    checked.push({ assertion: given, assertionId });
  }
  return checked;
}
