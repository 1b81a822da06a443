import type { DecisionRecord } from './decision-record.js';
import type { EvidenceQuery } from './evidence-query.interface.js';
import type { ShadowSummaryRow } from './shadow-summary.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';

/** The `EvidenceQuery` of a module that configured none its recorder could serve: every read is a wiring fault. */
export class UnconfiguredEvidenceQuery implements EvidenceQuery {
  async list(): Promise<DecisionRecord[]> {
    return this.fail();
  }

  async run(): Promise<DecisionRecord[]> {
    return this.fail();
  }

  async shadowSummary(): Promise<ShadowSummaryRow[]> {
    return this.fail();
  }

  private fail(): never {
    throw new VerdictConfigurationError(
      'No evidence query is configured: pass VerdictModule.forRoot({ evidenceQuery: new TypeOrmEvidenceQuery(dataSource) }) (or an InMemoryEvidenceRecorder as evidence).',
    );
  }
}
