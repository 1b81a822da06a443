import { type ComparisonContext, describeChange } from './comparison-format.js';

/**
 * JUnit XML: one test case per changed case, failed when the change is blocking, so CI test views list
 * regressions by case id. No change is one passing test case.
 */
export function renderJUnit({ comparison, suite }: ComparisonContext): string {
  const failures = comparison.changes.filter((change) => change.blocking).length;
  const cases = comparison.changes.map((change) => {
    const name = `${change.purpose}/${change.caseId}`;
    const failure = change.blocking
      ? `<failure type="${change.kind}" message="${xml(describeChange(change))}"/>`
      : `<system-out>${xml(describeChange(change))}</system-out>`;
    return `    <testcase classname="${xml(suite)}" name="${xml(name)}">${failure}</testcase>`;
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
