import { Trust } from '../context-release/trust.js';
import type { InfluenceReport } from './influence-report.js';
import { passagesOf } from './extraction-passages.js';
import { describeLabel, type ProvenanceLabel } from './provenance-label.js';
import type { ProvenanceSourceKind } from './provenance-source.js';
import { provenanceSummary } from './provenance-summary.js';
import type { ProvenanceWindow } from './provenance-window.js';

/** A source label as an approver reads it: the application's names, never content. */
export interface ApproverSource {
  readonly kind: ProvenanceSourceKind;
  readonly name: string;
  readonly trust: Trust;
  /** `kind:name (trust)`, e.g. `external:product-reviews (untrusted)`. */
  readonly description: string;
}

/** An argument whose value occurs in untrusted content, and the sources it occurs in. */
export interface ApproverArgument {
  /**
   * The argument path when the capability's provenance policy declares it (`recipient`), else its
   * fingerprint, `#<sha256 prefix>` (keys of a free-form argument are model-written). Never the value.
   */
  readonly path: string;
  readonly sources: readonly ApproverSource[];
}

/**
 * One untrusted content item that was in the window: its content fingerprint and source, never its text.
 * `ApprovalService.untrustedContent` releases the text itself through a context release route.
 */
export interface UntrustedContentReference {
  /** `sha256` of the item's text as it entered the context. */
  readonly fingerprint: string;
  readonly source: ApproverSource;
  /**
   * Set on the source passage of a value a quarantined model extracted (docs/quarantine.md): the fingerprint of
   * the extracted value's item, listed just before it. The deciding model never saw this passage; the approver
   * reads it next to the value.
   */
  readonly passageOf?: string;
}

/**
 * What an approver (or reviewer) is shown about the provenance of a parked call, built from trusted data
 * only — source labels the application declared, argument paths from its policy, content fingerprints —
 * never argument values or content. Carried on `ApprovalChallenge`, `PendingApproval`, the LangGraph
 * interrupt, `ReviewItem` and `PendingReview`, and stored with the receipt or item.
 *
 * @example
 * { observed: true, untrustedContext: true,
 *   untrustedSources: [{ kind: 'external', name: 'product-reviews', trust: 'untrusted', description: 'external:product-reviews (untrusted)' }],
 *   arguments: [{ path: 'recipient', sources: [<the same source>] }],
 *   untrustedContent: [{ fingerprint: '9f2c…', source: <the same source> }],
 *   summary: 'Untrusted content in context: external:product-reviews (untrusted). Argument recipient matches …' }
 */
export interface ApproverProvenance {
  /** Whether Verdict observed the window; `false`: its content is unknown, hence treated as untrusted. */
  readonly observed: boolean;
  /** Untrusted (or unobserved) content was in the window when the call was proposed. */
  readonly untrustedContext: boolean;
  /** The untrusted sources in the window, one per distinct source. */
  readonly untrustedSources: readonly ApproverSource[];
  /** The arguments whose values occur in untrusted content and in no trusted content. */
  readonly arguments: readonly ApproverArgument[];
  /** Every untrusted item of an observed window, one per distinct fingerprint and source, in window order. */
  readonly untrustedContent: readonly UntrustedContentReference[];
  /** The same, as text: `provenanceSummary` of the report (what the receipt's reason ends with). */
  readonly summary: string;
}

/** The approver's view of `report` (and of the arguments a positive rule found `notDerived`), whose paths are already shown as the policy allows, for the call proposed in `window`. */
export function approverProvenance(
  report: InfluenceReport,
  window: ProvenanceWindow,
  notDerived: readonly string[] = [],
): ApproverProvenance {
  const seen = new Set<string>();
  const untrustedContent: UntrustedContentReference[] = [];
  if (window.observed)
    for (const item of window.items) {
      const { label } = item;
      const key = `${label.fingerprint}|${label.source.toString()}`;
      if (label.trust !== Trust.Untrusted || seen.has(key)) continue;
      seen.add(key);
      untrustedContent.push(Object.freeze({ fingerprint: label.fingerprint, source: approverSource(label) }));
      for (const passage of passagesOf(item)) {
        const passageKey = `${passage.label.fingerprint}|${passage.label.source.toString()}|${label.fingerprint}`;
        if (seen.has(passageKey)) continue;
        seen.add(passageKey);
        untrustedContent.push(
          Object.freeze({
            fingerprint: passage.label.fingerprint,
            source: approverSource(passage.label),
            passageOf: label.fingerprint,
          }),
        );
      }
    }
  return Object.freeze({
    observed: report.observed,
    untrustedContext: report.untrustedContext,
    untrustedSources: Object.freeze(report.untrustedSources.map(approverSource)),
    arguments: Object.freeze(
      report.arguments.map(({ path, sources }) =>
        Object.freeze({ path, sources: Object.freeze(sources.map(approverSource)) }),
      ),
    ),
    untrustedContent: Object.freeze(untrustedContent),
    summary: provenanceSummary(report, notDerived),
  });
}

function approverSource(label: Pick<ProvenanceLabel, 'source' | 'trust'>): ApproverSource {
  return Object.freeze({
    kind: label.source.kind,
    name: label.source.name,
    trust: label.trust,
    description: describeLabel(label),
  });
}
