export { DecisionRecordEntity } from './decision-record.entity.js';
export { ExecutionClaimEntity } from './execution-claim.entity.js';
export { RateLimitWindowEntity } from './rate-limit-window.entity.js';
export { verdictEntities } from './verdict-entities.js';
export { verdictMigrations } from './migrations/index.js';
export { TypeOrmEvidenceRecorder } from './typeorm-evidence-recorder.js';
export { TypeOrmExecutionClaimStore } from './typeorm-execution-claim-store.js';
export { TypeOrmRateLimitStore } from './typeorm-rate-limit-store.js';
