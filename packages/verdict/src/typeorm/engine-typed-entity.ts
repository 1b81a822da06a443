import type { ColumnType, DataSource, ValueTransformer } from 'typeorm';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { LINK_PENDING } from './link-pending.js';
import { longTextType } from './migrations/long-text-type.js';
import { utcInstantType } from './migrations/utc-instant-column.js';

/** The properties declared {@link LongText}, per entity class. */
const longTexts = new WeakMap<object, Set<string>>();
/** The columns declared `Date` that took their engine's instant type. */
const instants = new WeakSet<object>();

/** simple-json's conversion, for a simple-json column that took its engine's long text type. */
const jsonText: ValueTransformer = {
  to: (value: unknown) => (value === null || value === undefined ? value : JSON.stringify(value)),
  from: (value: unknown) => (typeof value === 'string' ? (JSON.parse(value) as unknown) : value),
};

/**
 * Marks a text column (`text` or `simple-json`) that Verdict's migrations create with {@link longTextType}: on
 * MySQL/MariaDB it takes `longtext`, as the migration created it.
 */
export function LongText(): PropertyDecorator {
  return (prototype, property) => {
    const properties = longTexts.get(prototype.constructor) ?? new Set<string>();
    longTexts.set(prototype.constructor, properties.add(String(property)));
  };
}

/** Whether `column` keeps a UTC instant: declared `Date`, whichever type its engine gave it. */
export function isInstantColumn(column: { readonly type: unknown }): boolean {
  return column.type === Date || instants.has(column);
}

/**
 * Gives `entity`'s columns on `dataSource` the types Verdict's migrations created them with on its engine: a `Date`
 * column {@link utcInstantType}'s (`timestamptz(3)` on PostgreSQL, `datetime(3)` on MySQL/MariaDB, `datetime` on
 * SQLite), a {@link LongText} column {@link longTextType}'s. Values convert as before: TypeORM converts those types
 * as it does `Date` and `text`, and a simple-json column keeps simple-json's conversion. An engine Verdict's
 * migrations do not support keeps the declared types.
 */
function takeEngineTypes(dataSource: DataSource, entity: object): void {
  const engine = dataSource.options.type;
  const instant = utcInstantType(engine);
  const longText = longTextType(engine);
  const long = longTexts.get(entity);
  for (const metadata of dataSource.entityMetadatas.filter((candidate) => candidate.target === entity))
    for (const column of metadata.columns) {
      if (column.type === Date && instant !== undefined) {
        instants.add(column);
        column.type = instant.type as ColumnType;
        column.precision = instant.precision;
      }
      if (long?.has(column.propertyName) && longText !== 'text') {
        if (column.type === 'simple-json') column.transformer = jsonText;
        column.type = longText;
      }
      // PostgreSQL queues pending records in a table of their own (ADR 0135): `link_pending` has no default there.
      if (column.databaseName === LINK_PENDING && engine === 'postgres') column.default = undefined;
    }
}

function notActiveRecord(): never {
  throw new VerdictConfigurationError(
    "Verdict's entities are not active records: use the DataSource's repositories, or Verdict's stores.",
  );
}

/**
 * The base of Verdict's entities (ADR 0116): what they declare is engine-neutral (`Date`, `text`, `simple-json`), and
 * when a DataSource builds its metadata each entity takes the column types Verdict's migrations created on that
 * DataSource's engine, so that TypeORM's schema builder (`synchronize`, `migration:generate`) finds nothing to change
 * in Verdict's tables. TypeORM hands a DataSource to an entity class that has static `useDataSource`, `hasId` and
 * `save` (its active-record protocol) once the DataSource's metadata is built; the class has them for that only,
 * not as part of its type, and `hasId` and `save` throw.
 */
export abstract class EngineTypedEntity {}

Object.defineProperties(EngineTypedEntity, {
  useDataSource: {
    value(this: object, dataSource: DataSource | null): void {
      if (dataSource !== null) takeEngineTypes(dataSource, this);
    },
  },
  hasId: { value: notActiveRecord },
  save: { value: notActiveRecord },
});
