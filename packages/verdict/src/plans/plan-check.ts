import { coversPath, parseReleasePath } from '../context-release/release-path.js';
import type { ArgumentDerivation, InfluenceReport } from '../provenance/influence-report.js';
import { ProvenanceSourceKind } from '../provenance/provenance-source.js';
import type { PlanInForce, PlanStep } from './plan.js';

/**
 * Why a proposal is outside the plan in force, or `undefined` when it is within it: its capability is in no step,
 * or no one step of its capability covers the whole call — in each, one of its values is not derived from trusted
 * content and is found in a source the step does not name for its path (a value found in no untrusted content — a
 * short number, a computed value — counts as from every untrusted source of the window, the unobserved one
 * included; the unobserved source is never named, even when a plan lists it). A call cannot take one step's
 * sources for one argument and another step's for the next. The reason names the plan by fingerprint, and the
 * argument as `report` shows it: the provenance stage hands a report whose paths the capability's provenance policy
 * does not declare are `#<sha256 prefix>` already (plan paths are model-written, never shown).
 */
export function planRefusal(
  inForce: PlanInForce | null,
  capability: string,
  report: InfluenceReport,
): string | undefined {
  if (inForce === null) return 'plan mode: no plan was accepted for this run';
  const name = `plan ${inForce.fingerprint.slice(0, 16)}`;
  const steps = inForce.plan.steps.filter((step) => step.capability === capability);
  if (steps.length === 0) return `${name}: capability ${capability} is not in the plan`;
  const outside = steps.map((step) => report.derivation.find((leaf) => !leaf.derived && !within(step, leaf, report)));
  if (outside.some((leaf) => leaf === undefined)) return undefined;
  return `${name}: argument ${outside[0]!.path} comes from a source the plan did not name`;
}

/**
 * Whether `step` names, for the leaf's path, every source its value may come from: a value found in untrusted
 * content only in named sources; one found nowhere only when every untrusted source of the window is named for it.
 * Content Verdict did not see is no source a plan can name: an unobserved window is never within a plan.
 */
function within(step: PlanStep, leaf: ArgumentDerivation, report: InfluenceReport): boolean {
  const named = Object.entries(step.arguments ?? {})
    .filter(([pattern]) => covers(pattern, leaf.segments))
    .flatMap(([, sources]) => sources);
  const found = report.arguments.find((influence) => influence.path === leaf.path)?.sources ?? [];
  const origins = found.length > 0 ? found : report.untrustedSources;
  return origins.every(
    (label) => label.source.kind !== ProvenanceSourceKind.Unobserved && named.includes(label.source.toString()),
  );
}

/** Whether the plan's path `pattern` covers the argument path `segments`; a path that does not parse covers nothing. */
function covers(pattern: string, segments: readonly string[]): boolean {
  try {
    return coversPath(parseReleasePath(pattern, 'plan argument'), segments);
  } catch {
    return false;
  }
}
