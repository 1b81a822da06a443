import { Inject, Injectable } from '@nestjs/common';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { ContextReleaseService } from '../context-release/context-release.service.js';
import type { Destination } from '../context-release/destination.js';
import { ProvenanceLabels } from '../provenance/provenance-labels.js';
import { PublicMessage } from '../public-message.js';
import { moduleGuardWiring } from '../runtimes/module-guard-wiring.js';
import { AgentsModelInputGuard, type AgentsModelInputGuardOptions } from './agents-model-input-guard.js';

/**
 * Makes {@link AgentsModelInputGuard}s wired to the module's context release, public message, capabilities and
 * provenance labels.
 *
 * @example
 * const guard = guards.forDestination(Destination.connection('openai', 'eu'), { toolResults: { orders_view: orderRoute } });
 */
@Injectable()
export class AgentsModelInputGuards {
  constructor(
    private readonly releases: ContextReleaseService,
    private readonly registry: CapabilityRegistry,
    @Inject(PublicMessage) private readonly publicMessage: string,
    private readonly provenanceLabels: ProvenanceLabels,
  ) {}

  /** A guard for agents whose model runs at `destination`. */
  forDestination(
    destination: Destination,
    options: Omit<
      AgentsModelInputGuardOptions,
      'releaser' | 'destination' | 'publicMessage' | 'isCapability' | 'provenanceLabels'
    >,
  ): AgentsModelInputGuard {
    return new AgentsModelInputGuard({
      ...options,
      ...moduleGuardWiring(this.releases, this.registry, this.publicMessage, this.provenanceLabels),
      destination,
    });
  }
}
