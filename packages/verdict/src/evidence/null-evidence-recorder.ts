import { Logger } from '@nestjs/common';
import type { DecisionRecord } from './decision-record.js';
import type { EvidenceRecorder } from './evidence-recorder.interface.js';
import type { ReleaseRecord } from './release-record.js';

let warned = false;

/**
 * The default recorder: keeps nothing, because silently choosing a storage destination or retention
 * would be unsafe. Warns once per process that consequential actions go unrecorded.
 */
export class NullEvidenceRecorder implements EvidenceRecorder {
  async recordDecision(_record?: DecisionRecord): Promise<void> {
    warnOnce();
  }

  async recordRelease(_record?: ReleaseRecord): Promise<void> {
    warnOnce();
  }
}

function warnOnce(): void {
  if (warned) return;
  warned = true;
  new Logger('Verdict').warn(
    'No evidence recorder is configured: consequential agent actions and context releases are not being recorded. Pass `evidence` to VerdictModule.forRoot (TypeOrmEvidenceRecorder from @verdict/nestjs/typeorm).',
  );
}
