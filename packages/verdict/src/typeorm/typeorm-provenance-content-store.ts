import { type DataSource, Equal, In, LessThan } from 'typeorm';
import type { KeptContent, ProvenanceContentStore } from '../provenance/provenance-content-store.interface.js';
import { ProvenanceContentEntity } from './provenance-content.entity.js';
import { checkUtcTimezone } from './store-connection.js';

/**
 * The untrusted texts of parked calls' windows in `verdict_provenance_contents` (SQLite, PostgreSQL,
 * MySQL/MariaDB), shared by every process of a deployment, so that an approver served by any of them can read
 * what the agent read (ADR 0042). Keeping a kept text again refreshes its `kept_at`.
 *
 * @example VerdictModule.forRoot({ ..., provenance: { contents: new TypeOrmProvenanceContentStore(dataSource) } })
 */
export class TypeOrmProvenanceContentStore implements ProvenanceContentStore {
  constructor(private readonly dataSource: DataSource) {
    checkUtcTimezone(dataSource, 'TypeOrmProvenanceContentStore');
  }

  async keep(texts: readonly KeptContent[], now: Date): Promise<void> {
    if (texts.length === 0) return;
    await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(ProvenanceContentEntity)
      .values(texts.map(({ fingerprint, text }) => ({ fingerprint, text, keptAt: now })))
      .orUpdate(['kept_at'], ['fingerprint'])
      .updateEntity(false)
      .callListeners(false)
      .execute();
  }

  async text(fingerprint: string): Promise<string | undefined> {
    // `Equal`: under `invalidWhereValuesBehavior: { null: 'ignore' }` a bare null would match any text.
    const row = await this.dataSource
      .getRepository(ProvenanceContentEntity)
      .findOneBy({ fingerprint: Equal(fingerprint) });
    return row?.text;
  }

  async forget(fingerprints: readonly string[]): Promise<void> {
    if (fingerprints.length === 0) return;
    await this.dataSource.getRepository(ProvenanceContentEntity).delete({ fingerprint: In([...fingerprints]) });
  }

  async prune(before: Date): Promise<number> {
    const result = await this.dataSource.getRepository(ProvenanceContentEntity).delete({ keptAt: LessThan(before) });
    return result.affected ?? 0;
  }
}
