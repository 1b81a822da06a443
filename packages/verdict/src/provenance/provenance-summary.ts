import { describeLabel } from './provenance-label.js';
import type { InfluenceReport } from './influence-report.js';

/**
 * The provenance summary an approver reads (and the provenance decision's reason), built from trusted data
 * only: source labels the application declared and argument paths from the schema, never content or values.
 *
 * `notDerived` names the arguments a positive rule found not derived from trusted content.
 *
 * @example 'Untrusted content in context: tool:products.view (untrusted). Argument recipient matches content from tool:products.view (untrusted).'
 */
export function provenanceSummary(report: InfluenceReport, notDerived: readonly string[] = []): string {
  const parts: string[] = [];
  if (report.untrustedContext)
    parts.push(
      report.observed
        ? `Untrusted content in context: ${report.untrustedSources.map(describeLabel).join(', ')}.`
        : 'The context window was not observed: it is treated as untrusted.',
    );
  for (const influence of report.arguments)
    parts.push(`Argument ${influence.path} matches content from ${influence.sources.map(describeLabel).join(', ')}.`);
  for (const path of notDerived) parts.push(`Argument ${path} is not derived from trusted content.`);
  return parts.length === 0 ? 'No untrusted content in context.' : parts.join(' ');
}
