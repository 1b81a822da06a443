import { ChangeKind, isBlocking } from '../baselines/change-kind.js';
import { type ComparisonContext, describeChange } from './comparison-format.js';

/** A change as the JUnit and SARIF writers show it, from a deterministic or a live comparison. */
export interface RenderedChange {
  readonly kind: string;
  readonly blocking: boolean;
  /** The case the change is about (`pack` and `run` for a live report's pack figures and the run as a whole). */
  readonly caseId: string;
  /** How CI views name it: `purpose/caseId` for deterministic cases, the case id for live ones. */
  readonly name: string;
  /** The one-line, value-free description. */
  readonly description: string;
}

/** What the JUnit and SARIF writers need: the suite, the current report, its changes and every kind a change can have. */
export interface RenderedComparison {
  readonly suite: string;
  readonly currentFile: string;
  readonly changes: readonly RenderedChange[];
  /** Every change kind of this comparison's report kind, in rule order, with whether it blocks. */
  readonly kinds: readonly { readonly kind: string; readonly blocking: boolean }[];
}

/** A deterministic comparison (`verdict.evaluation-report.v1`) as the writers show it. */
export function renderedComparisonOf({ comparison, suite, currentFile }: ComparisonContext): RenderedComparison {
  return {
    suite,
    currentFile,
    changes: comparison.changes.map((change) => ({
      kind: change.kind,
      blocking: change.blocking,
      caseId: change.caseId,
      name: `${change.purpose}/${change.caseId}`,
      description: describeChange(change),
    })),
    kinds: Object.values(ChangeKind).map((kind) => ({ kind, blocking: isBlocking(kind) })),
  };
}
