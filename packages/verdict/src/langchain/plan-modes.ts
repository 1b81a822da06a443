import { Inject, Injectable, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { ActionContextStore } from '../context/action-context.store.js';
import { ACTION_CONTEXT_OPTIONS, type ActionContextOptions } from '../context/action-context-options.interface.js';
import { moduleActorKey } from '../context/actor-key.js';
import { ProvenanceLabels } from '../provenance/provenance-labels.js';
import { PlanMode, type PlanModeOptions } from './plan-mode.js';

/**
 * Makes {@link PlanMode}s wired to the module's capabilities (a plan naming another is refused), the trackers'
 * shared labels, the action context (plans are kept per actor,
 * tenant and thread, under the module's `actorKey`) and, when imported, the event emitter.
 */
@Injectable()
export class PlanModes {
  constructor(
    private readonly labels: ProvenanceLabels,
    private readonly contexts: ActionContextStore,
    private readonly registry: CapabilityRegistry,
    @Inject(ACTION_CONTEXT_OPTIONS) private readonly options: ActionContextOptions,
    @Optional() private readonly events?: EventEmitter2,
  ) {}

  /** Plan mode for one agent. */
  forAgent(options: Omit<PlanModeOptions, 'events' | 'actorKey' | 'isCapability'> = {}): PlanMode {
    return new PlanMode(this.labels, this.contexts, {
      ...options,
      isCapability: (name) => this.registry.find(name) !== undefined,
      events: this.events,
      actorKey: moduleActorKey(this.options),
    });
  }
}
