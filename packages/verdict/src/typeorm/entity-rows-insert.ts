import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { Statement } from './store-connection.js';

/**
 * A multi-row INSERT of every column of one entity, as TypeORM's InsertQueryBuilder would send it — the same
 * table path, column names and driver-prepared values (`Driver.preparePersistentValue`: dates, booleans per
 * engine) — without building the query on each call: the SQL text is built once per row count from the entity's
 * metadata, and each call only prepares the values (ADR 0112). A property that is `undefined` is bound as NULL.
 */
export class EntityRowsInsert {
  private shape: { readonly head: string; readonly columns: readonly ColumnMetadata[] } | undefined;
  private readonly sqlByRowCount = new Map<number, string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly entity: EntityTarget<ObjectLiteral>,
  ) {}

  /** The statement inserting `rows` (at least one). */
  statement(rows: readonly object[]): Statement {
    // Built on first use: the DataSource may be initialized after the store was constructed.
    const { columns } = (this.shape ??= this.shapeOf());
    const driver = this.dataSource.driver;
    const parameters: unknown[] = [];
    for (const row of rows)
      for (const column of columns) parameters.push(driver.preparePersistentValue(column.getEntityValue(row), column));
    let sql = this.sqlByRowCount.get(rows.length);
    if (sql === undefined) this.sqlByRowCount.set(rows.length, (sql = this.sqlFor(rows.length)));
    return [sql, parameters];
  }

  private shapeOf() {
    const metadata = this.dataSource.getMetadata(this.entity);
    const { driver } = this.dataSource;
    const table = metadata.tablePath
      .split('.')
      .map((part) => (part === '' ? part : driver.escape(part)))
      .join('.');
    const columns = metadata.columns.filter((column) => column.isInsert);
    const names = columns.map((column) => driver.escape(column.databaseName)).join(', ');
    return { head: `INSERT INTO ${table} (${names}) VALUES `, columns };
  }

  private sqlFor(rowCount: number): string {
    const { head, columns } = this.shape!;
    const { driver } = this.dataSource;
    const tuples: string[] = [];
    for (let row = 0, index = 0; row < rowCount; row++)
      tuples.push(`(${columns.map(() => driver.createParameter('', index++)).join(', ')})`);
    return head + tuples.join(', ');
  }
}
