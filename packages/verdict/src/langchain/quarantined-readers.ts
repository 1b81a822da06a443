import { Inject, Injectable } from '@nestjs/common';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { ProvenanceLabels } from '../provenance/provenance-labels.js';
import { PublicMessage } from '../public-message.js';
import { QuarantineService } from '../quarantine/quarantine.service.js';
import { QuarantinedReading, type QuarantinedReadingOptions } from './quarantined-reading.js';

/** Makes {@link QuarantinedReading}s wired to the module's quarantine and the trackers' shared labels. */
@Injectable()
export class QuarantinedReaders {
  constructor(
    private readonly quarantine: QuarantineService,
    private readonly labels: ProvenanceLabels,
    private readonly registry: CapabilityRegistry,
    @Inject(PublicMessage) private readonly publicMessage: string,
  ) {}

  /**
   * Quarantined reading for one agent, with the schemas its model may ask values for.
   * @throws VerdictConfigurationError when the module has no `quarantine: { model }`: the agent would be offered
   *   an extract tool that fails at its first call.
   */
  forAgent(options: QuarantinedReadingOptions): QuarantinedReading {
    this.quarantine.assertExtractable('QuarantinedReaders.forAgent');
    return new QuarantinedReading(this.quarantine, this.labels, options, {
      registry: this.registry,
      publicMessage: this.publicMessage,
    });
  }
}
