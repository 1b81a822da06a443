import type { DataSource } from 'typeorm';
import { TrajectoryContentionError } from '../errors/trajectory-contention.error.js';
import { canonicalJson } from '../fingerprints/canonical-json.js';
import type {
  TrajectoryOutcome,
  TrajectoryRequest,
  TrajectoryStore,
} from '../forbidden-states/trajectory-store.interface.js';
import type { TrajectoryState } from '../trajectory/index.js';
import { StoreConnection } from './store-connection.js';

const TABLE = 'verdict_trajectory_states';

/** Advances one trajectory may lose to concurrent ones before the call fails with `TrajectoryContentionError`. */
export const TRAJECTORY_ADVANCE_ATTEMPTS = 64;

/**
 * Trajectory states in `verdict_trajectory_states`, shared by every process and node on the database.
 * An advance is optimistic: read the row, fold the call's effects in process, then write only if the
 * version is still the one read (`UPDATE … WHERE version = ?`, or an insert that does nothing on a
 * conflict of its key for a new trajectory); a lost race re-reads and folds again. A refusal writes nothing.
 * A state of any length is kept whole: on MySQL/MariaDB `state` is `longtext` (migration
 * `WidenTrajectoryStatesAndContainmentReasons1797030000000`), and a write the database refuses rejects.
 * Writes never join an application transaction (see `StoreConnection`). Database failures reject.
 *
 * @example
 * VerdictModule.forRoot({ trajectories: new TypeOrmTrajectoryStore(dataSource) });
 */
export class TypeOrmTrajectoryStore implements TrajectoryStore {
  private readonly connection: StoreConnection;
  private readonly readSql: string;
  private readonly insertSql: string;
  private readonly updateSql: string;

  constructor(dataSource: DataSource) {
    this.connection = new StoreConnection(dataSource, 'TypeOrmTrajectoryStore');
    const p = (index: number) => this.connection.param(index);
    const insert = `INSERT INTO ${TABLE} (trajectory_fingerprint, state, version, updated_at) VALUES`;
    this.readSql = `SELECT state, version FROM ${TABLE} WHERE trajectory_fingerprint = ${p(1)}`;
    // Only the key's conflict does nothing; any other failure (a state too long for the column) rejects. On
    // MySQL/MariaDB the OK packet's insert id tells an insert (1) from a kept row (0), as in the rate-limit store:
    // mysql2 reports a row set to its current values as affected too (CLIENT_FOUND_ROWS).
    this.insertSql =
      this.connection.dialect === 'mysql'
        ? `${insert} (?, ?, LAST_INSERT_ID(1), ?) ON DUPLICATE KEY UPDATE version = version + LAST_INSERT_ID(0)`
        : `${insert} (${p(1)}, ${p(2)}, 1, ${p(3)}) ON CONFLICT (trajectory_fingerprint) DO NOTHING`;
    this.updateSql = `UPDATE ${TABLE} SET state = ${p(1)}, version = version + 1, updated_at = ${p(2)} WHERE trajectory_fingerprint = ${p(3)} AND version = ${p(4)}`;
  }

  async advance({ trajectoryFingerprint, initial, advance, now }: TrajectoryRequest): Promise<TrajectoryOutcome> {
    const at = this.connection.instant(now);
    for (let attempt = 0; attempt < TRAJECTORY_ADVANCE_ATTEMPTS; attempt++) {
      const { rows } = await this.connection.write('Trajectory read', this.readSql, [trajectoryFingerprint]);
      const row = rows[0];
      const version = row === undefined ? 0 : Number(row.version);
      const state = row === undefined ? initial : (JSON.parse(String(row.state)) as TrajectoryState);
      const next = advance(state);
      if (next.violation !== null) return { admitted: false, violation: next.violation };
      const written =
        version === 0
          ? await this.insert(trajectoryFingerprint, canonicalJson(next.state), at)
          : await this.update(trajectoryFingerprint, next.state, at, version);
      if (written) return { admitted: true, position: version + 1 };
    }
    throw new TrajectoryContentionError(TRAJECTORY_ADVANCE_ATTEMPTS);
  }

  /** The first advance of a trajectory; `false` when a concurrent one inserted it first. */
  private async insert(trajectoryFingerprint: string, state: string, at: Date | string): Promise<boolean> {
    const result = await this.connection.write('Trajectory advance', this.insertSql, [
      trajectoryFingerprint,
      state,
      at,
    ]);
    return (this.connection.dialect === 'mysql' ? result.insertId : result.affected) === 1;
  }

  /** A later advance; `false` when a concurrent one changed the version first. */
  private async update(
    trajectoryFingerprint: string,
    state: TrajectoryState,
    at: Date | string,
    version: number,
  ): Promise<boolean> {
    return (
      (
        await this.connection.write('Trajectory advance', this.updateSql, [
          canonicalJson(state),
          at,
          trajectoryFingerprint,
          version,
        ])
      ).affected === 1
    );
  }
}
