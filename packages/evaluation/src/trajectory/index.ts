export { evaluateForbiddenState } from './evaluate-forbidden-state.js';
export type { TrajectoryVerdict } from './trajectory-verdict.js';
export type { ProvenanceLink } from './provenance-link.js';
export type { EffectEvent } from './effect-event.js';
