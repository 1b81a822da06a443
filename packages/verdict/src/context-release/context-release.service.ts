import { Inject, Injectable, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { CONTEXT_RELEASE_OPTIONS, type ContextReleaseOptions } from './context-release-options.interface.js';
import { ContextReleaser } from './context-releaser.js';
import { checkedDetectors } from './release-policy.js';
import { ReleasePolicyRegistry } from './release-policy-registry.js';

/**
 * Context release (docs/context-release.md) wired to the module: the registered routes, the evidence recorder, the
 * module's detectors and clock, and `EventEmitter2` when `EventEmitterModule` is imported.
 * `release(payload)…to(destination)` resolves with `{ permitted, payload, reason }`.
 *
 * @example
 * const { permitted, payload } = await releases.release(customer)
 *   .source(Source.application('customer-profile')).trust(Trust.Trusted).classify(DataClass.Pii)
 *   .only(['first_name', 'orders.*.status']).to(Destination.connection('ollama-local', 'local-machine'));
 */
@Injectable()
export class ContextReleaseService extends ContextReleaser {
  constructor(
    registry: ReleasePolicyRegistry,
    @Inject(EvidenceRecorder) recorder: EvidenceRecorder,
    @Inject(CONTEXT_RELEASE_OPTIONS) options: ContextReleaseOptions,
    @Optional() events?: EventEmitter2,
  ) {
    super({
      policies: registry,
      recorder,
      detectors:
        options.detectors === undefined ? undefined : checkedDetectors(options.detectors, 'VerdictModule detectors'),
      clock: options.clock,
      events,
    });
  }
}
