import { Inject, Injectable } from '@nestjs/common';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { ContextReleaseService } from '../context-release/context-release.service.js';
import type { Destination } from '../context-release/destination.js';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { PublicMessage } from '../public-message.js';
import { ModelInputGuard, type ModelInputGuardOptions } from './model-input-guard.js';
import { ProvenanceLabels } from '../provenance/provenance-labels.js';

/** Makes {@link ModelInputGuard}s wired to the module's context release, evidence recorder, public message and provenance labels. */
@Injectable()
export class ModelInputGuards {
  constructor(
    private readonly releases: ContextReleaseService,
    private readonly registry: CapabilityRegistry,
    @Inject(PublicMessage) private readonly publicMessage: string,
    @Inject(EvidenceRecorder) private readonly recorder: EvidenceRecorder,
    private readonly provenanceLabels: ProvenanceLabels,
  ) {}

  /**
   * A guard for an agent whose model runs at `destination`.
   * @throws VerdictConfigurationError for a `destination` that is not a `Destination`, a malformed `toolResults`
   *   route (naming the tool and what is wrong), or a `sealKey` that is not a Uint8Array of at least 32 bytes.
   */
  forDestination(
    destination: Destination,
    options: Omit<
      ModelInputGuardOptions,
      'releaser' | 'destination' | 'publicMessage' | 'isCapability' | 'recorder' | 'provenanceLabels'
    >,
  ): ModelInputGuard {
    const isCapability = (name: string) => this.registry.find(name) !== undefined;
    const { releases: releaser, publicMessage, recorder, provenanceLabels } = this;
    return new ModelInputGuard({
      ...options,
      releaser,
      destination,
      publicMessage,
      isCapability,
      recorder,
      provenanceLabels,
    });
  }
}
