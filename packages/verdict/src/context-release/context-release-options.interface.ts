import type { ClockOptions } from '../shared/clock-options.interface.js';
import type { PiiDetector } from './detectors/index.js';
import type { ReleasePolicy } from './release-policy.js';

/** What context release reads of the module options. */
export interface ContextReleaseOptions extends ClockOptions {
  /** Context release routes, one per source → destination (a duplicate route is a boot error). Also declared by `@ReleasePolicies()` providers. */
  readonly releasePolicies?: readonly ReleasePolicy[];
  /** Detectors for free-text scanning and post-scrub validation of routes that name none. Default: `DEFAULT_DETECTORS`. */
  readonly detectors?: readonly PiiDetector[];
}

/** Injects the module's {@link ContextReleaseOptions} (provided by the core module). */
export const CONTEXT_RELEASE_OPTIONS = Symbol('VerdictContextReleaseOptions');
