import { type ComparisonContext, describeChange } from './comparison-format.js';

/** One line per change for people, blocking ones first, and a verdict line. */
export function renderConsole({ comparison, suite }: ComparisonContext): string {
  const changes = [...comparison.changes].sort((a, b) => Number(b.blocking) - Number(a.blocking));
  const lines = changes.map((change) => `  ${change.blocking ? 'BLOCKING' : 'ok      '}  ${describeChange(change)}`);
  const blocking = changes.filter((change) => change.blocking).length;
  const verdict =
    blocking > 0
      ? `BLOCKING: ${blocking} blocking change(s) against the baseline`
      : 'OK: no blocking change against the baseline';
  return [`Suite ${suite}: ${changes.length} change(s)`, ...lines, verdict].join('\n');
}
