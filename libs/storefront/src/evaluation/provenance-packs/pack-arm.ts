/**
 * The three arms every provenance-pack case runs in, side by side:
 * - `naive`: plain LangChain tools that call the executors directly (no Verdict);
 * - `verdict`: the same executors as capabilities behind Verdict (CASL, validation, evidence), no provenance policy;
 * - `provenance`: Verdict with the provenance tracker and each consequential capability's provenance policy;
 * - `quarantine` (the AgentDojo packs only): the provenance arm, with quarantined reading (docs/quarantine.md): the
 *   deciding model reads untrusted results only as handles, through a quarantined model.
 */
export const PackArm = {
  Naive: 'naive',
  Verdict: 'verdict',
  Provenance: 'provenance',
  Quarantine: 'quarantine',
} as const;
export type PackArm = (typeof PackArm)[keyof typeof PackArm];

export const PACK_ARMS: readonly PackArm[] = [PackArm.Naive, PackArm.Verdict, PackArm.Provenance];

/** The AgentDojo packs' arms: the three, and quarantined reading. */
export const AGENTDOJO_ARMS: readonly PackArm[] = [...PACK_ARMS, PackArm.Quarantine];
