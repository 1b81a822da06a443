import type { EvidenceTrail } from '../evidence/evidence-trail.js';
import type { Envelope } from '../vocabulary/envelope.js';
import type { CapabilityDefinition } from './capability-definition.js';

/**
 * What a gate reads of one run at its step (ADR 0059): the capability, the envelope, the target the step checks
 * (the execution target after the refresh of step 7; a guarded tool's proposal target), the module's clock and the
 * run's evidence trail. The pipeline builds it; a gate never sees the pipeline's own state.
 */
export interface GateRequest {
  readonly definition: CapabilityDefinition;
  readonly envelope: Envelope;
  readonly target: unknown;
  /** Read once when the gate starts, as the pipeline read it when it called the gate. */
  readonly clock: () => Date;
  readonly trail: EvidenceTrail;
}
