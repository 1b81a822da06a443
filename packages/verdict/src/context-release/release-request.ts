import type { ContextTransformer } from './context-transformer.interface.js';
import type { DataClass } from './data-class.js';
import type { Destination } from './destination.js';
import type { PlaceholderVault } from './detectors/index.js';
import type { Source } from './source.js';
import type { Trust } from './trust.js';

/** What free-text scanning does with a detection: replace it, or swap it for a placeholder a vault can restore. */
export const ScanMode = {
  Redact: 'redact',
  Tokenize: 'tokenize',
} as const;

export type ScanMode = (typeof ScanMode)[keyof typeof ScanMode];

/** Free-text scanning of string fields the caller marks. */
export interface ScanOptions {
  /** Default `redact`. */
  readonly mode?: ScanMode;
  /** For `tokenize`: where placeholders are kept. Default: a new vault per release, returned in the result. */
  readonly vault?: PlaceholderVault;
}

/** The replacement `redact()` writes by default. */
export const DEFAULT_RELEASE_REDACTION = '[REDACTED]';

/**
 * One release, as plain data: what `release(payload)…to(destination)` builds, and what middleware can
 * pass to `ContextReleaser.releaseRequest` directly. Source, trust, classification, destination and a
 * non-empty `only` are required.
 */
export interface ReleaseRequest {
  /** A plain object. Only values at `only` paths can leave. */
  readonly payload: unknown;
  readonly source: Source;
  readonly trust: Trust;
  readonly classification: DataClass;
  readonly destination: Destination;
  /** Dot paths to release (`orders.*.status`); a path to an object or array releases its subtree. */
  readonly only: readonly string[];
  /** Released paths whose values (everything beneath, for a subtree) are replaced by `replacement`. */
  readonly redact?: readonly string[];
  /** Default {@link DEFAULT_RELEASE_REDACTION}. */
  readonly replacement?: string;
  /** String fields to scan with the route's detectors. */
  readonly scan?: ScanOptions & { readonly paths: readonly string[] };
  /** Custom transforms, run in order after projection, redaction and scanning. */
  readonly transformers?: readonly ContextTransformer[];
  /** Correlates this release with other evidence (a run or conversation id). Default: a fresh UUID. */
  readonly correlationId?: string;
}
