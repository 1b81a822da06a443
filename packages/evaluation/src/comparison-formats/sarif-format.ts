import type { ComparisonContext } from './comparison-format.js';
import { type RenderedComparison, renderedComparisonOf } from './rendered-comparison.js';

/**
 * SARIF 2.1.0 for code-scanning views: one rule per change kind, one result per change (level `error`
 * when blocking, `note` otherwise) located in the current report, the case id as logical location.
 */
export function renderSarif(context: ComparisonContext): string {
  return writeSarif(renderedComparisonOf(context));
}

/** The SARIF log of any comparison (deterministic or live) once its changes are {@link RenderedComparison}. */
export function writeSarif({ currentFile, changes, kinds }: RenderedComparison): string {
  const ruleIds = kinds.map(({ kind }) => kind);
  const log = {
    version: '2.1.0',
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    runs: [
      {
        tool: {
          driver: {
            name: 'verdict-eval',
            rules: kinds.map(({ kind, blocking }) => ({
              id: kind,
              name: kind,
              shortDescription: { text: kind.replace(/_/g, ' ') },
              defaultConfiguration: { level: blocking ? 'error' : 'note' },
            })),
          },
        },
        results: changes.map((change) => ({
          ruleId: change.kind,
          ruleIndex: ruleIds.indexOf(change.kind),
          level: change.blocking ? 'error' : 'note',
          message: { text: change.description },
          locations: [
            {
              physicalLocation: { artifactLocation: { uri: currentFile } },
              logicalLocations: [{ name: change.caseId, fullyQualifiedName: change.name, kind: 'test' }],
            },
          ],
        })),
      },
    ],
  };
  return JSON.stringify(log, null, 2);
}
