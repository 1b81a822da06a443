import type { ActionContextOptions } from '../context/action-context-options.interface.js';
import type { ProvenanceStageOptions } from '../provenance/provenance-stage-options.interface.js';
import type { QuarantineChatModel } from './quarantine-chat-model.js';

/** Default number of live quarantine handles a process keeps: 10,000, oldest forgotten first. */
export const DEFAULT_QUARANTINE_CAPACITY = 10_000;

/** Quarantined reading (docs/quarantine.md): the model that turns quarantined content into typed values. */
export interface QuarantineConfiguration {
  /**
   * The quarantined chat model: no tools, never sees the deciding model's context. With `modelBudgets`, its calls
   * are counted too: it must declare a maximum output (`maxTokens`, else a `maxOutputTokens` in `modelBudgets` or its
   * price) and, under a `cost` budget, name itself (`ls_model_name`) with a price — or the module does not boot
   * (`VerdictConfigurationError`).
   */
  readonly model: QuarantineChatModel;
  /**
   * How many handles this process keeps (in memory, bounded; an extraction from a forgotten handle is an
   * `unknown_handle` error). A positive integer (anything else is a `VerdictConfigurationError` at boot). Default
   * {@link DEFAULT_QUARANTINE_CAPACITY}.
   */
  readonly capacity?: number;
}

/** What quarantined reading reads of the module options: its own, the provenance ledger, the actor key, the clock. */
export interface QuarantineOptions extends Pick<ProvenanceStageOptions, 'provenance' | 'clock'>, ActionContextOptions {
  /**
   * Quarantined reading (docs/quarantine.md): untrusted content reaches the deciding model only as a handle, and
   * a separate model with no tools extracts schema-typed values from it. Default: none (`QuarantineService.extract`
   * is a `VerdictConfigurationError`).
   *
   * @example quarantine: { model: new ChatOpenAI({ model: 'gpt-4.1-mini' }) }
   */
  readonly quarantine?: QuarantineConfiguration;
}

/** Injects the module's {@link QuarantineOptions} (provided by the core module). */
export const QUARANTINE_OPTIONS = Symbol('VerdictQuarantineOptions');
