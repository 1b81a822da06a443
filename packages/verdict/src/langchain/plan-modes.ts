import { Injectable, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { ProvenanceLabels } from '../provenance/provenance-labels.js';
import { PlanMode, type PlanModeOptions } from './plan-mode.js';

/** Makes {@link PlanMode}s wired to the trackers' shared labels and, when imported, the event emitter. */
@Injectable()
export class PlanModes {
  constructor(
    private readonly labels: ProvenanceLabels,
    @Optional() private readonly events?: EventEmitter2,
  ) {}

  /** Plan mode for one agent. */
  forAgent(options: Omit<PlanModeOptions, 'events'> = {}): PlanMode {
    return new PlanMode(this.labels, { ...options, events: this.events });
  }
}
