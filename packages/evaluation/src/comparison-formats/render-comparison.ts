import { ComparisonFormat, type ComparisonContext } from './comparison-format.js';
import { renderConsole } from './console-format.js';
import { renderGitHub } from './github-format.js';
import { renderJUnit } from './junit-format.js';
import { renderSarif } from './sarif-format.js';

const RENDERERS: Record<ComparisonFormat, (context: ComparisonContext) => string> = {
  [ComparisonFormat.Console]: renderConsole,
  [ComparisonFormat.GitHub]: renderGitHub,
  [ComparisonFormat.JUnit]: renderJUnit,
  [ComparisonFormat.Sarif]: renderSarif,
};

/** Whether `value` names a comparison format. */
export function isComparisonFormat(value: unknown): value is ComparisonFormat {
  return typeof value === 'string' && Object.hasOwn(RENDERERS, value);
}

/** Renders a comparison in `format`. */
export function renderComparison(format: ComparisonFormat, context: ComparisonContext): string {
  return RENDERERS[format](context);
}
