/**
 * Emitted (through @nestjs/event-emitter, event name {@link ContextReleaseDenied.event}) after a release
 * was denied and its evidence written. Carries the route and the internal reason, never the payload.
 */
export class ContextReleaseDenied {
  static readonly event = 'verdict.context_release_denied';

  constructor(
    /** The release record's id. */
    readonly recordId: string,
    readonly correlationId: string,
    /** `kind:name`, e.g. `application:customer-profile`. */
    readonly source: string,
    /** `connection@trustZone`, e.g. `ollama-gpu@partner-cloud`. */
    readonly destination: string,
    /** The internal reason (`route_not_registered`, `detector_fired:EMAIL`, …). */
    readonly reason: string,
  ) {}
}
