import type { ActionContextOptions } from '../context/action-context-options.interface.js';
import type { ClockOptions } from '../shared/clock-options.interface.js';

/** What security events read of the module options: their own, and the actor key and clock. */
export interface SecurityEventOptions extends ActionContextOptions, ClockOptions {
  /**
   * The tenant a resolved target belongs to, for `CrossTenantResourceRequested` (ADR 0024): when CASL
   * denies a target whose tenant differs from the action context's, the deny raises that event. It
   * never permits or denies anything itself. Default: none (the event is never raised).
   *
   * @example tenantOf: (target) => (target instanceof Order ? target.tenantId : undefined)
   */
  readonly tenantOf?: (target: unknown, capability: string) => string | null | undefined;
  /** How many identical proposals in one conversation raise `ToolLoopDetected` (at 3, 6, …). Default: 3. */
  readonly toolLoopThreshold?: number;
}

/** Injects the module's {@link SecurityEventOptions} (provided by the core module). */
export const SECURITY_EVENT_OPTIONS = Symbol('VerdictSecurityEventOptions');
