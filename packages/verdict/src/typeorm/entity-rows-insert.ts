import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { Statement } from './store-connection.js';

/**
 * Column types whose string and number values TypeORM's PostgreSQL, MySQL/MariaDB and SQLite drivers bind as they
 * are: `Driver.preparePersistentValue` returns such a value (and `null` or `undefined`) unchanged for a column of one of
 * these types without a transformer. Such values are bound without the call, which allocates on every value it checks.
 */
const BOUND_AS_THEY_ARE: ReadonlySet<unknown> = new Set(['varchar', 'text', 'integer']);

/** One inserted column, and whether its value is read and bound as it is (see {@link BOUND_AS_THEY_ARE}). */
interface InsertedColumn {
  readonly metadata: ColumnMetadata;
  readonly plain: boolean;
}

/**
 * A multi-row INSERT of every column of one entity, as TypeORM's InsertQueryBuilder would send it — the same
 * table path, column names and driver-prepared values (`Driver.preparePersistentValue`: dates, booleans per
 * engine) — without building the query on each call: the SQL text is built once per row count from the entity's
 * metadata, and each call only prepares the values (ADR 0112). A property that is `undefined` is bound as NULL.
 */
export class EntityRowsInsert {
  private shape: { readonly head: string; readonly columns: readonly InsertedColumn[] } | undefined;
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
    const parameters = new Array<unknown>(rows.length * columns.length);
    let index = 0;
    for (const row of rows)
      for (const { metadata, plain } of columns) {
        const value = plain ? (row as Record<string, unknown>)[metadata.propertyName] : metadata.getEntityValue(row);
        parameters[index++] =
          plain && (value === null || value === undefined || typeof value === 'string' || typeof value === 'number')
            ? value
            : driver.preparePersistentValue(value, metadata);
      }
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
    const columns = metadata.columns
      .filter((column) => column.isInsert)
      .map((column) => ({ metadata: column, plain: boundAsItIs(column) }));
    const names = columns.map(({ metadata: column }) => driver.escape(column.databaseName)).join(', ');
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

/**
 * Whether `column`'s value is the row's own property, and its string, number, `null` or `undefined` value is bound as
 * it is: a column of the entity itself (not embedded, no relation) without a transformer, of a type the drivers bind
 * unchanged.
 */
function boundAsItIs(column: ColumnMetadata): boolean {
  return (
    column.embeddedMetadata === undefined &&
    column.relationMetadata === undefined &&
    column.referencedColumn === undefined &&
    column.transformer === undefined &&
    BOUND_AS_THEY_ARE.has(column.type)
  );
}
