import { type EvidenceChain, isEvidenceChain } from '../evidence/evidence-chain.interface.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';

/** The configured recorder as an {@link EvidenceChain}. @throws Error naming what to configure when it keeps no chain. */
export function configuredEvidenceChain(recorder: EvidenceRecorder): EvidenceChain {
  if (isEvidenceChain(recorder)) return recorder;
  throw new Error(
    `The configured evidence recorder (${recorder.constructor.name}) keeps no hash chain: configure TypeOrmEvidenceRecorder from @verdict/nestjs/typeorm as \`evidence\`.`,
  );
}
