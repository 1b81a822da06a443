import { type DataSource, type EntityManager, Equal, In, LessThan } from 'typeorm';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { isStorableText } from '../shared/storable-text.js';
import type { KeptContent, ProvenanceContentStore } from '../provenance/provenance-content-store.interface.js';
import { isSerializationFailure, retryDeadlockVictim } from './deadlock-retry.js';
import { ProvenanceContentEntity } from './provenance-content.entity.js';
import { checkUtcTimezone } from './store-connection.js';

/**
 * The untrusted texts of parked calls' windows in `verdict_provenance_contents` (SQLite, PostgreSQL,
 * MySQL/MariaDB), shared by every process of a deployment, so that an approver served by any of them can read
 * what the agent read (ADR 0042). Keeping a kept text again refreshes its `kept_at`.
 *
 * Each write is one autocommitted statement, written for READ COMMITTED. On a PostgreSQL database whose default
 * isolation is REPEATABLE READ or SERIALIZABLE, processes keeping, forgetting or pruning the same texts at once
 * get a write refused as not serializable (SQLSTATE `40001`, rolled back entirely): it is sent once more in a READ
 * COMMITTED transaction of its own, as the durable gates' statements are (ADR 0176). A keep locks its rows in
 * fingerprint order; a forget or a prune racing it can still lock the same rows in another order, and the server then
 * rolls one statement back as a deadlock victim: it is sent again, as the evidence recorder's inserts are.
 *
 * A text comes back exactly on every engine, U+0000 and lone surrogates included (a ticket may hold them): PostgreSQL's
 * `text` refuses U+0000, and UTF-8 has no lone surrogate. Such a text is kept escaped, as its JSON string literal
 * (`"…\u0000…"`); any other is kept as it is. A row reads as escaped only when it is a JSON string literal, it does not
 * hash to its fingerprint and what it parses to does: a row kept as it is hashes to its own (the fingerprint is the
 * text's), so every row written before, a raw U+0000 on SQLite or MariaDB included, reads back as it was.
 *
 * @example VerdictModule.forRoot({ ..., provenance: { contents: new TypeOrmProvenanceContentStore(dataSource) } })
 */
export class TypeOrmProvenanceContentStore implements ProvenanceContentStore {
  constructor(private readonly dataSource: DataSource) {
    checkUtcTimezone(dataSource, 'TypeOrmProvenanceContentStore');
  }

  async keep(texts: readonly KeptContent[], now: Date): Promise<void> {
    if (texts.length === 0) return;
    const rows = texts
      .map(({ fingerprint, text }) => ({ fingerprint, text: storedText(text), keptAt: now }))
      .sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
    await this.write((manager) =>
      manager
        .createQueryBuilder()
        .insert()
        .into(ProvenanceContentEntity)
        .values(rows)
        .orUpdate(['kept_at'], ['fingerprint'])
        .updateEntity(false)
        .callListeners(false)
        .execute(),
    );
  }

  async text(fingerprint: string): Promise<string | undefined> {
    // `Equal`: under `invalidWhereValuesBehavior: { null: 'ignore' }` a bare null would match any text.
    const row = await this.dataSource
      .getRepository(ProvenanceContentEntity)
      .findOneBy({ fingerprint: Equal(fingerprint) });
    return row === null ? undefined : keptText(row.fingerprint, row.text);
  }

  async forget(fingerprints: readonly string[]): Promise<void> {
    if (fingerprints.length === 0) return;
    const where = { fingerprint: In([...fingerprints]) };
    await this.write((manager) => manager.getRepository(ProvenanceContentEntity).delete(where));
  }

  async prune(before: Date): Promise<number> {
    const where = { keptAt: LessThan(before) };
    const result = await this.write((manager) => manager.getRepository(ProvenanceContentEntity).delete(where));
    return result.affected ?? 0;
  }

  /**
   * `statement` autocommitted on the pool; on PostgreSQL, refused as not serializable (rolled back entirely, so
   * nothing was written), it is sent once more in a READ COMMITTED transaction of its own, where PostgreSQL
   * re-checks a row a racing write changed (ADR 0176). A deadlock victim (that statement alone rolled back) is sent
   * again, at most `DEADLOCK_ATTEMPTS` times in all. Any other failure, and the last attempt's, rejects as it came.
   */
  private write<T>(statement: (manager: EntityManager) => Promise<T>): Promise<T> {
    return retryDeadlockVictim(async () => {
      try {
        return await statement(this.dataSource.manager);
      } catch (error) {
        if (!isSerializationFailure(error)) throw error;
        return this.dataSource.transaction('READ COMMITTED', statement);
      }
    });
  }
}

/** `text` as a row keeps it: as it is, or escaped (its JSON string literal) when no engine keeps it as it is. */
function storedText(text: string): string {
  return isStorableText(text) ? text : JSON.stringify(text);
}

/**
 * The text a row keeps: `stored` itself, unless it is an escaped text ({@link storedText}), one that does not hash to
 * `fingerprint` while what it parses to does. A text kept as it is hashes to its fingerprint, whatever it holds.
 */
function keptText(fingerprint: string, stored: string): string {
  if (!stored.startsWith('"') || fingerprintString(stored) === fingerprint) return stored;
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return stored;
  }
  return typeof parsed === 'string' && fingerprintString(parsed) === fingerprint ? parsed : stored;
}
