import type { MigrationInterface, QueryRunner } from 'typeorm';
import { longTextType } from './long-text-type.js';

/** The texts widened: table and column, each `text NOT NULL` as its table's migration creates it. */
const WIDENED = [
  // CreateTrajectoryStates1796000000001.
  ['verdict_trajectory_states', 'state'],
  // CreateContainments1796000240000.
  ['verdict_containments', 'reason'],
] as const;

/**
 * On MySQL/MariaDB, gives a trajectory's folded state and a kill switch's reason the long text type
 * ({@link longTextType}): their `text` held 64 KiB, while the other engines keep a text of any length. A first state
 * past it was cut short under `INSERT IGNORE`, admitted, and every later call of the trajectory then failed reading
 * the cut JSON; a later state past it failed the call. Nothing on the other engines. One ALTER TABLE per table, which
 * rebuilds it once; rows are kept. `down` gives both columns `text` again, and fails while a value exceeds 64 KiB.
 */
export class WidenTrajectoryStatesAndContainmentReasons1797030000000 implements MigrationInterface {
  name = 'WidenTrajectoryStatesAndContainmentReasons1797030000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await retype(queryRunner, longTextType(queryRunner.connection.options.type));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await retype(queryRunner, 'text');
  }
}

/** Gives each of {@link WIDENED} `type` on MySQL/MariaDB, where `text` is not the long text type. */
async function retype(queryRunner: QueryRunner, type: 'longtext' | 'text'): Promise<void> {
  if (longTextType(queryRunner.connection.options.type) === 'text') return;
  const q = (name: string) => queryRunner.connection.driver.escape(name);
  for (const [table, column] of WIDENED)
    await queryRunner.query(`ALTER TABLE ${q(table)} MODIFY ${q(column)} ${type} NOT NULL`);
}
