import { SecurityEvent } from './security-event.js';

/**
 * CASL denied a target that the module's `tenantOf` hook places in another tenant than the action context's (ADR 0024). The deny is CASL's; this event only says the refused target was foreign. Emitted through @nestjs/event-emitter as {@link CrossTenantResourceRequested.event}; fingerprints and facts only.
 */
export class CrossTenantResourceRequested extends SecurityEvent {
  static readonly event = 'verdict.cross_tenant_resource_requested';
}
