/**
 * Emitted (with `@nestjs/event-emitter`) when a run in plan mode accepts a plan (docs/quarantine.md, "Plans"):
 * the first one, made from trusted input, or a change the user approved. Fingerprints only, never the plan's
 * text or the thread id.
 *
 * @example \@OnEvent(PlanRecorded.event) audit(event: PlanRecorded) { ... }
 */
export class PlanRecorded {
  static readonly event = 'verdict.plan.recorded';

  constructor(
    /** `sha256(JCS(plan))`: proposals refused outside it name it in their decision's reason (its first 16 digits). */
    readonly planFingerprint: string,
    /** The plan it replaces, `null` for the run's first. */
    readonly previousFingerprint: string | null,
    /** `sha256(thread id)`. */
    readonly threadFingerprint: string,
    readonly occurredAt: Date,
  ) {}
}
