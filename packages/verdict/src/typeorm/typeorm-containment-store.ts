import type { DataSource } from 'typeorm';
import type { Containment, ContainmentKey } from '../containment/containment.js';
import type { ContainmentScope } from '../containment/containment-scope.js';
import type { ContainmentEngagement, ContainmentStore } from '../containment/containment-store.interface.js';
import { StoreConnection } from './store-connection.js';

const TABLE = 'verdict_containments';
const COLUMNS = 'scope, subject, reason, engaged_by, operator_identity, engaged_at';

/**
 * Kill switches in `verdict_containments`, shared by every process and node on the database. Engaging
 * is one insert that does nothing on a conflict of its key (the kept row is read back); releasing is one delete, of
 * the engagement made at `engagedAt` when it is given (a switch engaged again since is kept). A subject matches itself only:
 * on MySQL/MariaDB the key columns have a binary, no-pad collation (migration `CompareContainmentsExactly1797015000000`).
 * A reason of any length is kept whole: on MySQL/MariaDB `reason` is `longtext` (migration
 * `WidenTrajectoryStatesAndContainmentReasons1797030000000`), and a write the database refuses rejects.
 * Writes never join an application transaction (see `StoreConnection`). Database failures reject.
 *
 * @example
 * VerdictModule.forRoot({ abilityFactory, containment: { store: new TypeOrmContainmentStore(dataSource) } });
 */
export class TypeOrmContainmentStore implements ContainmentStore {
  private readonly connection: StoreConnection;
  private readonly insertSql: string;
  private readonly readSql: string;
  private readonly deleteSql: string;
  private readonly deleteEngagementSql: string;
  private readonly activeSql: string;

  constructor(dataSource: DataSource) {
    this.connection = new StoreConnection(dataSource, 'TypeOrmContainmentStore');
    const p = (index: number) => this.connection.param(index);
    const insert = `INSERT INTO ${TABLE} (${COLUMNS}) VALUES`;
    // Only the key's conflict does nothing; any other failure (a reason too long for the column) rejects. On
    // MySQL/MariaDB the OK packet's insert id tells an insert (1, set around the reason, which `IF` passes through)
    // from a kept row (0), as in the rate-limit store: mysql2 reports a row set to its current values as affected
    // too (CLIENT_FOUND_ROWS).
    this.insertSql =
      this.connection.dialect === 'mysql'
        ? `${insert} (?, ?, IF(LAST_INSERT_ID(1), ?, NULL), ?, ?, ?) ON DUPLICATE KEY UPDATE scope = IF(LAST_INSERT_ID(0), scope, scope)`
        : `${insert} (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}) ON CONFLICT (scope, subject) DO NOTHING`;
    this.readSql = `SELECT ${COLUMNS} FROM ${TABLE} WHERE scope = ${p(1)} AND subject = ${p(2)}`;
    this.deleteSql = `DELETE FROM ${TABLE} WHERE scope = ${p(1)} AND subject = ${p(2)}`;
    this.deleteEngagementSql = `${this.deleteSql} AND engaged_at = ${p(3)}`;
    this.activeSql = `SELECT ${COLUMNS} FROM ${TABLE} ORDER BY engaged_at, scope, subject`;
  }

  async engage(containment: Containment): Promise<ContainmentEngagement> {
    const { scope, subject, reason, engagedBy, operatorIdentity, engagedAt } = containment;
    const parameters = [scope, subject, reason, engagedBy, operatorIdentity, this.connection.instant(engagedAt)];
    if (await this.insert(parameters)) return { engaged: true, containment: { ...containment } };
    const { rows } = await this.connection.write('Containment read', this.readSql, [scope, subject]);
    // Released between the insert and the read: nothing is kept, so try once more as a fresh engagement.
    if (rows[0] === undefined) return this.engage(containment);
    return { engaged: false, containment: this.containmentOf(rows[0]) };
  }

  async release({ scope, subject }: ContainmentKey, engagedAt?: Date): Promise<boolean> {
    const [sql, parameters] =
      engagedAt === undefined
        ? [this.deleteSql, [scope, subject]]
        : [this.deleteEngagementSql, [scope, subject, this.connection.instant(engagedAt)]];
    return (await this.connection.write('Containment release', sql, parameters)).affected > 0;
  }

  async active(): Promise<Containment[]> {
    const { rows } = await this.connection.write('Containment read', this.activeSql, []);
    return rows.map((row) => this.containmentOf(row));
  }

  /** Whether the engagement was inserted; `false` when its key's switch is engaged already. */
  private async insert(parameters: readonly unknown[]): Promise<boolean> {
    const result = await this.connection.write('Containment engage', this.insertSql, parameters);
    return (this.connection.dialect === 'mysql' ? result.insertId : result.affected) === 1;
  }

  private containmentOf(row: Record<string, unknown>): Containment {
    return {
      scope: String(row.scope) as ContainmentScope,
      subject: String(row.subject),
      reason: String(row.reason),
      engagedBy: String(row.engaged_by),
      operatorIdentity: row.operator_identity === null ? null : String(row.operator_identity),
      engagedAt: instantOf(row.engaged_at),
    };
  }
}

/** A UTC instant as each driver returns it: a Date (pg, mysql2) or SQLite's 'YYYY-MM-DD HH:MM:SS.SSS' text. */
function instantOf(value: unknown): Date {
  if (value instanceof Date) return value;
  const text = String(value);
  return new Date(text.includes('T') ? text : `${text.replace(' ', 'T')}Z`);
}
