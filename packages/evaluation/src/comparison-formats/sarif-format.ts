import { ChangeKind, isBlocking } from '../baselines/change-kind.js';
import { type ComparisonContext, describeChange } from './comparison-format.js';

/**
 * SARIF 2.1.0 for code-scanning views: one rule per change kind, one result per change (level `error`
 * when blocking, `note` otherwise) located in the current report, the case id as logical location.
 */
export function renderSarif({ comparison, currentFile }: ComparisonContext): string {
  const kinds = Object.values(ChangeKind);
  const log = {
    version: '2.1.0',
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    runs: [
      {
        tool: {
          driver: {
            name: 'verdict-eval',
            rules: kinds.map((kind) => ({
              id: kind,
              name: kind,
              shortDescription: { text: kind.replace(/_/g, ' ') },
              defaultConfiguration: { level: isBlocking(kind) ? 'error' : 'note' },
            })),
          },
        },
        results: comparison.changes.map((change) => ({
          ruleId: change.kind,
          ruleIndex: kinds.indexOf(change.kind),
          level: change.blocking ? 'error' : 'note',
          message: { text: describeChange(change) },
          locations: [
            {
              physicalLocation: { artifactLocation: { uri: currentFile } },
              logicalLocations: [
                { name: change.caseId, fullyQualifiedName: `${change.purpose}/${change.caseId}`, kind: 'test' },
              ],
            },
          ],
        })),
      },
    ],
  };
  return JSON.stringify(log, null, 2);
}
