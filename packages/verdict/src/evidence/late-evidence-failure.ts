import { Logger } from '@nestjs/common';
import type { EventEmitter2 } from '@nestjs/event-emitter';
import { EvidenceWriteFailed } from '../events/evidence-write-failed.event.js';
import { emitSafely } from '../events/emit-safely.js';

/**
 * Reports evidence that could not be written after a mutating step ran (ADR 0022): the `EvidenceWriteFailed`
 * event when `@nestjs/event-emitter` is wired, else an error log. The action's result stands.
 */
export function reportLateEvidenceFailure(events: EventEmitter2 | undefined, failure: EvidenceWriteFailed): void {
  if (events !== undefined) emitSafely(events, EvidenceWriteFailed.event, failure);
  else
    new Logger('Verdict').error(
      `Evidence for ${failure.capability} (${failure.stage}) could not be written after a mutating gate`,
      failure.error,
    );
}
