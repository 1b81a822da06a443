export { DecisionRecordEntity } from './decision-record.entity.js';
export { verdictEntities } from './verdict-entities.js';
export { verdictMigrations } from './migrations/index.js';
export { TypeOrmEvidenceRecorder } from './typeorm-evidence-recorder.js';
