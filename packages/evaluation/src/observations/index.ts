export { Observation, type ObservationInit, type ExecutionObservation } from './observation.js';
export { ObservedToolCall, type ObservedToolCallInit } from './observed-tool-call.js';
export { InvalidObservationError } from './invalid-observation.error.js';
