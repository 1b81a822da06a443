import type { ComparisonContext } from './comparison-format.js';
import { type RenderedComparison, renderedComparisonOf } from './rendered-comparison.js';

/**
 * JUnit XML: one test case per changed case, failed when the change is blocking, so CI test views list
 * regressions by case id. No change is one passing test case.
 */
export function renderJUnit(context: ComparisonContext): string {
  return writeJUnit(renderedComparisonOf(context));
}

/** The JUnit XML of any comparison (deterministic or live) once its changes are {@link RenderedComparison}. */
export function writeJUnit({ suite, changes }: RenderedComparison): string {
  const failures = changes.filter((change) => change.blocking).length;
  const cases = changes.map((change) => {
    const failure = change.blocking
      ? `<failure type="${change.kind}" message="${xml(change.description)}"/>`
      : `<system-out>${xml(change.description)}</system-out>`;
    return `    <testcase classname="${xml(suite)}" name="${xml(change.name)}">${failure}</testcase>`;
  });
  if (cases.length === 0) cases.push(`    <testcase classname="${xml(suite)}" name="baseline comparison"/>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="verdict-eval compare" tests="${cases.length}" failures="${failures}">`,
    `  <testsuite name="${xml(suite)}" tests="${cases.length}" failures="${failures}" errors="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
  ].join('\n');
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const xml = (text: string) => text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
