import type { AuthorizationOptions } from '../authorization/authorization-options.interface.js';
import type { ActionContextOptions } from '../context/action-context-options.interface.js';
import type { ProvenanceOptions } from '../provenance/provenance-policy.js';
import type { ClockOptions } from '../shared/clock-options.interface.js';
import type { ApprovalEndpointHooks } from './approval-endpoint-hooks.interface.js';
import type { ApprovalReceiptStore } from './approval-receipt-store.interface.js';

/**
 * What approvals read of the module options: their store and hooks, the abilities, actor key and clock, and the
 * provenance options (whose strict mode decides which capabilities can issue receipts).
 */
export interface ApprovalOptions extends AuthorizationOptions, ActionContextOptions, ClockOptions {
  /**
   * Where approval receipts live. Required when any capability uses `requiresConfirmation` (checked at boot). A
   * value given is checked at every boot: `null`, `{}` or a store missing a method is a `VerdictConfigurationError`.
   */
  readonly approvals?: ApprovalReceiptStore;
  /** The application's hooks for `@ApprovalEndpoint()` routes. */
  readonly approvalEndpoint?: ApprovalEndpointHooks;
  /** The module's provenance options (docs/provenance.md): with `strict`, consequential capabilities can ask too. */
  readonly provenance?: ProvenanceOptions;
}

/** Injects the module's {@link ApprovalOptions} (provided by the core module). */
export const APPROVAL_OPTIONS = Symbol('VerdictApprovalOptions');
