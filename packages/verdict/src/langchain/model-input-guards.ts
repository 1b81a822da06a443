import { Inject, Injectable } from '@nestjs/common';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { ContextReleaseService } from '../context-release/context-release.service.js';
import type { Destination } from '../context-release/destination.js';
import { PublicMessage } from '../public-message.js';
import { ModelInputGuard, type ModelInputGuardOptions } from './model-input-guard.js';

/** Makes {@link ModelInputGuard}s wired to the module's context release and public message. */
@Injectable()
export class ModelInputGuards {
  constructor(
    private readonly releases: ContextReleaseService,
    private readonly registry: CapabilityRegistry,
    @Inject(PublicMessage) private readonly publicMessage: string,
  ) {}

  /** A guard for an agent whose model runs at `destination`. */
  forDestination(
    destination: Destination,
    options: Omit<ModelInputGuardOptions, 'releaser' | 'destination' | 'publicMessage' | 'isCapability'>,
  ): ModelInputGuard {
    const isCapability = (name: string) => this.registry.find(name) !== undefined;
    return new ModelInputGuard({ ...options, releaser: this.releases, destination, publicMessage: this.publicMessage, isCapability });
  }
}
