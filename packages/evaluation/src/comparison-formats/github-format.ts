import type { ComparisonContext } from './comparison-format.js';
import { type RenderedComparison, renderedComparisonOf } from './rendered-comparison.js';

/** GitHub Actions workflow commands: `::error` for a blocking change, `::notice` otherwise, on the current report file. */
export function renderGitHub(context: ComparisonContext): string {
  return writeGitHub(renderedComparisonOf(context));
}

/**
 * The workflow commands of any comparison (deterministic or live) once its changes are {@link RenderedComparison}:
 * one line per change, `::error` when it blocks, `::notice` otherwise, titled by its kind and located in the current
 * report file; `::notice::no change against the baseline` when there is none.
 */
export function writeGitHub({ currentFile, changes }: RenderedComparison): string {
  const lines = changes.map(
    (change) =>
      `::${change.blocking ? 'error' : 'notice'} file=${escapeProperty(currentFile)},title=${escapeProperty(change.kind)}::${escapeData(change.description)}`,
  );
  return lines.length === 0 ? '::notice::no change against the baseline' : lines.join('\n');
}

// GitHub's escaping rules for workflow command data and property values.
const escapeData = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (text: string) => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
