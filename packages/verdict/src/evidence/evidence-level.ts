/**
 * How much of a run's evidence is kept (module option `evidenceLevel`, docs/evidence.md "Evidence levels").
 * - `standard` (default): one record per stage, in pipeline order.
 * - `minimal`: per write, only the latest record: at most one before the first mutating step and one with the
 *   run's final decision. Each still carries every fact the run established (argument, actor, tool-call and
 *   identity fingerprints); the earlier stages' own records are not kept.
 */
export const EvidenceLevel = {
  Standard: 'standard',
  Minimal: 'minimal',
} as const;

export type EvidenceLevel = (typeof EvidenceLevel)[keyof typeof EvidenceLevel];
