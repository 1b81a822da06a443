import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { notAStore } from '../shared/not-a-store.js';
import { EvidenceLevel } from './evidence-level.js';
import type { EvidenceOptions } from './evidence-options.interface.js';
import type { EvidenceQuery } from './evidence-query.interface.js';
import type { EvidenceRecorder } from './evidence-recorder.interface.js';

/** The methods of an {@link EvidenceRecorder} Verdict calls: every run's records, every release's record. */
export const EVIDENCE_RECORDER_METHODS = [
  'recordDecision',
  'recordRelease',
] as const satisfies readonly (keyof EvidenceRecorder)[];

/** The methods of an {@link EvidenceQuery} every reader calls (`shadowSummary` is optional). */
export const EVIDENCE_QUERY_METHODS = ['list', 'run'] as const satisfies readonly (keyof EvidenceQuery)[];

/**
 * Boot check of the module options `evidence`, `evidenceQuery` and `evidenceLevel`, when given: a recorder and a query
 * with every method Verdict calls, and a level it knows. A `{}` or a `null` from a `forRootAsync` factory would
 * otherwise boot and fail every call (or, as `null`, record nothing), and a level such as `'verbose'` would be read as
 * `standard` without a word.
 *
 * @throws VerdictConfigurationError naming the option, before anything starts.
 */
export function assertEvidenceConfigured({ evidence, evidenceQuery, evidenceLevel }: EvidenceOptions): void {
  const stores = [
    [evidence, 'evidence', 'EvidenceRecorder', EVIDENCE_RECORDER_METHODS, 'new TypeOrmEvidenceRecorder(dataSource)'],
    [evidenceQuery, 'evidenceQuery', 'EvidenceQuery', EVIDENCE_QUERY_METHODS, 'new TypeOrmEvidenceQuery(dataSource)'],
  ] as const;
  for (const [store, option, type, methods, example] of stores) {
    const problem = store === undefined ? null : notAStore(store, option, type, methods);
    if (problem !== null)
      throw new VerdictConfigurationError(`${problem}: pass ${example}, or leave it out.`, { option });
  }
  const level: unknown = evidenceLevel;
  if (level !== undefined && !(Object.values(EvidenceLevel) as unknown[]).includes(level))
    throw new VerdictConfigurationError(
      `\`evidenceLevel\` is ${typeof level === 'string' ? `'${level}'` : String(level)}: pass '${EvidenceLevel.Standard}' or '${EvidenceLevel.Minimal}', or leave it out.`,
      { option: 'evidenceLevel' },
    );
}
