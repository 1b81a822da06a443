import { Column, Index } from 'typeorm';

/** The column of a record that marks it pending on SQLite and MySQL/MariaDB (PostgreSQL queues it apart, ADR 0135). */
export const LINK_PENDING = 'link_pending';

/**
 * Declares, on an evidence record entity, `link_pending` and its index `index` as migration
 * QueueUnlinkedEvidence1797000500000 creates them (ADR 0062), so that TypeORM's schema builder keeps both (ADR 0116).
 * The column is a seal's bookkeeping, not a field of the record: it is no property of the entity's type, TypeORM
 * never selects, inserts or updates it (a new row gets `1` from the column default; a seal clears it with SQL of its
 * own), and a record's hash leaves it out. The index is partial on SQLite and leads with `link_pending` on
 * MySQL/MariaDB, which TypeORM cannot declare: it is declared `synchronize: false`, kept as it is. On PostgreSQL the
 * column stays for an older sealer, without its default or index (ADR 0135): pending records wait in a queue table.
 */
export function LinkPending(index: string): ClassDecorator {
  return (entity) => {
    Column({
      name: LINK_PENDING,
      type: 'smallint',
      nullable: true,
      default: 1,
      select: false,
      insert: false,
      update: false,
    })(entity.prototype as object, 'linkPending');
    Index(index, { synchronize: false })(entity);
  };
}
