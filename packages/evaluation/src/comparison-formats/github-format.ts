import { type ComparisonContext, describeChange } from './comparison-format.js';

/** GitHub Actions workflow commands: `::error` for a blocking change, `::notice` otherwise, on the current report file. */
export function renderGitHub({ comparison, currentFile }: ComparisonContext): string {
  const lines = comparison.changes.map(
    (change) =>
      `::${change.blocking ? 'error' : 'notice'} file=${escapeProperty(currentFile)},title=${change.kind}::${escapeData(describeChange(change))}`,
  );
  return lines.length === 0 ? '::notice::no change against the baseline' : lines.join('\n');
}

// GitHub's escaping rules for workflow command data and property values.
const escapeData = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (text: string) => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
