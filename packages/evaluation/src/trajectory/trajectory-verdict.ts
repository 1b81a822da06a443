import type { ProvenanceLink } from './provenance-link.js';

/**
 * The outcome of `forbidden_state_not_reached` over one trace.
 * - `pass`: no forbidden state among the *modelled* effects; `transitions` effects were folded. Nothing more is claimed.
 * - `fail`: `predicateId` became true after the effect at `transitionIndex` (0-based position in the fold order).
 * - `error`: an invalid state model or unreliable evidence (ambiguous order, malformed effect, dangling provenance).
 * `warnings` list coverage gaps: effect names with events that matched no transition rule.
 */
export type TrajectoryVerdict =
  | { readonly result: 'pass'; readonly transitions: number; readonly warnings: readonly string[] }
  | {
      readonly result: 'fail';
      readonly predicateId: string;
      readonly transitionIndex: number;
      readonly provenanceChain: readonly ProvenanceLink[];
      readonly warnings: readonly string[];
    }
  | { readonly result: 'error'; readonly problem: string };
