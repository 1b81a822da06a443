import { Inject, Injectable } from '@nestjs/common';
import { ContextReleaseService } from '../context-release/context-release.service.js';
import type { Destination } from '../context-release/destination.js';
import { PublicMessage } from '../public-message.js';
import { ModelInputGuard, type ModelInputGuardOptions } from './model-input-guard.js';

/** Makes {@link ModelInputGuard}s wired to the module's context release and public message. */
@Injectable()
export class ModelInputGuards {
  constructor(
    private readonly releases: ContextReleaseService,
    @Inject(PublicMessage) private readonly publicMessage: string,
  ) {}

  /** A guard for an agent whose model runs at `destination`. */
  forDestination(destination: Destination, options: Omit<ModelInputGuardOptions, 'releaser' | 'destination' | 'publicMessage'>): ModelInputGuard {
    return new ModelInputGuard({ ...options, releaser: this.releases, destination, publicMessage: this.publicMessage });
  }
}
