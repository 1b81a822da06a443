export { describeEvidenceRecorderContract } from './evidence-recorder.contract.js';
export type { EvidenceRecorderHarness } from './evidence-recorder.contract.js';
