import { table } from '@verdict/nestjs/cli';
import type { ComparisonContext } from './comparison-format.js';

/** A table of changes for people, blocking ones first, and a verdict line. */
export function renderConsole({ comparison, suite }: ComparisonContext): string {
  const changes = [...comparison.changes].sort((a, b) => Number(b.blocking) - Number(a.blocking));
  const rows = changes.map((change) => ({
    kind: change.kind,
    blocking: change.blocking ? 'yes' : 'no',
    purpose: change.purpose,
    case: change.caseId,
    baseline: change.baseline?.status ?? 'absent',
    current: change.current?.status ?? 'absent',
  }));
  const blocking = changes.filter((change) => change.blocking).length;
  const verdict = blocking > 0 ? `BLOCKING: ${blocking} blocking change(s) against the baseline` : 'OK: no blocking change against the baseline';
  return [`Suite ${suite}: ${changes.length} change(s)`, table(rows, ['kind', 'blocking', 'purpose', 'case', 'baseline', 'current']), verdict].join('\n');
}
