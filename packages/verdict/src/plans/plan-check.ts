import { coversPath, parseReleasePath } from '../context-release/release-path.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import type { InfluenceReport } from '../provenance/influence-report.js';
import { ProvenanceSourceKind } from '../provenance/provenance-source.js';
import type { PlanInForce } from './plan.js';

/**
 * Why a proposal is outside the plan in force, or `undefined` when it is within it: its capability is in no step,
 * or one of its values is not derived from trusted content and is found in a source no step names for its path
 * (a value found in no untrusted content — a short number, a computed value — counts as from every untrusted
 * source of the window, the unobserved one included; the unobserved source is never named, even when a plan
 * lists it). The reason names the
 * plan by fingerprint and paths the plan names; any other path as `#<sha256 prefix>`.
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
  for (const leaf of report.derivation) {
    if (leaf.derived) continue;
    const found = report.arguments.find((influence) => influence.path === leaf.path)?.sources ?? [];
    const within = steps.some((step) => {
      const named = Object.entries(step.arguments ?? {})
        .filter(([pattern]) => covers(pattern, leaf.segments))
        .flatMap(([, sources]) => sources);
      // A value found in untrusted content must be found only in named sources; one found nowhere (a short
      // number, a value the model computed) only when every untrusted source in the window is named for it.
      // Content Verdict did not see is no source a plan can name: an unobserved window is never within a plan.
      const origins = found.length > 0 ? found : report.untrustedSources;
      return origins.every(
        (label) => label.source.kind !== ProvenanceSourceKind.Unobserved && named.includes(label.source.toString()),
      );
    });
    if (!within) {
      const path = steps.some((step) => Object.keys(step.arguments ?? {}).some((p) => covers(p, leaf.segments)))
        ? leaf.path
        : `#${fingerprintString(leaf.path).slice(0, 16)}`;
      return `${name}: argument ${path} comes from a source the plan did not name`;
    }
  }
  return undefined;
}

/** Whether the plan's path `pattern` covers the argument path `segments`; a path that does not parse covers nothing. */
function covers(pattern: string, segments: readonly string[]): boolean {
  try {
    return coversPath(parseReleasePath(pattern, 'plan argument'), segments);
  } catch {
    return false;
  }
}
