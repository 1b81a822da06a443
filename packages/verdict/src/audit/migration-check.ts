import { FindingCode } from './finding-code.js';
import { Severity } from './severity.js';
import type { WiringFinding } from './wiring-finding.js';

/** The part of a TypeORM `DataSource` the audit reads (typed here so the root entry never imports typeorm). */
interface AuditedDataSource {
  readonly isInitialized: boolean;
  readonly options: { readonly type: string; readonly database?: unknown; readonly migrations?: unknown };
  readonly migrations: readonly object[];
  showMigrations(): Promise<boolean>;
}

const isDataSource = (value: unknown): value is AuditedDataSource =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as AuditedDataSource).showMigrations === 'function' &&
  'migrations' in value;

/** The DataSources Verdict's TypeORM stores hold (each keeps the one it was built with). */
export function dataSourcesOf(stores: readonly unknown[]): AuditedDataSource[] {
  const found = new Set<AuditedDataSource>();
  for (const store of stores) {
    const candidate = store as { dataSource?: unknown; connection?: { dataSource?: unknown } } | null | undefined;
    for (const value of [candidate?.dataSource, candidate?.connection?.dataSource])
      if (isDataSource(value)) found.add(value);
  }
  return [...found];
}

const migrationName = (migration: object) => (migration as { name?: string }).name ?? migration.constructor.name;

/**
 * The names of the migrations a DataSource has: once initialized, of the instances TypeORM built (`migrations`);
 * before, of the classes its `migrations` option lists, and whether it also lists paths or globs, whose files TypeORM
 * loads only in `initialize()`.
 */
function registeredMigrations(dataSource: AuditedDataSource): { names: Set<string>; paths: boolean } {
  if (dataSource.isInitialized) return { names: new Set(dataSource.migrations.map(migrationName)), paths: false };
  const listed = dataSource.options.migrations ?? [];
  // TypeORM's MixedList: an array, or an object whose values are the entries.
  const entries: unknown[] = Array.isArray(listed) ? listed : typeof listed === 'object' ? Object.values(listed) : [];
  const classes = entries.filter((entry): entry is { name: string } => typeof entry === 'function');
  return { names: new Set(classes.map((migration) => migration.name)), paths: classes.length < entries.length };
}

/**
 * Findings for one DataSource of Verdict's stores: Verdict migrations missing from its `migrations`, and
 * migrations that have not run (`MigrationExecutor.getPendingMigrations`, read-only). An uninitialized
 * DataSource's `migrations` option is read for the classes it lists; what it cannot tell (the files of a path, which
 * migrations have run) is a note, not a finding.
 */
export async function migrationFindings(dataSource: AuditedDataSource, notes: string[]): Promise<WiringFinding[]> {
  const subject = `DataSource (${dataSource.options.type})`;
  const findings: WiringFinding[] = [];
  // Loaded only here: an application with a DataSource has typeorm installed.
  const { verdictMigrations } = await import('../typeorm/migrations/index.js');
  const registered = registeredMigrations(dataSource);
  const missing = verdictMigrations.map((migration) => migration.name).filter((name) => !registered.names.has(name));
  if (missing.length > 0 && registered.paths) {
    notes.push(
      `${subject} is not initialized and its migrations option lists paths, which were not loaded: whether they hold verdictMigrations was not checked.`,
    );
  } else if (missing.length > 0) {
    findings.push({
      code: FindingCode.VerdictMigrationsNotRegistered,
      severity: Severity.Critical,
      subject,
      message: `Verdict's stores use this DataSource, but its migrations lack ${missing.join(', ')}: add verdictMigrations to the DataSource's migrations.`,
    });
  }
  if (!dataSource.isInitialized) {
    notes.push(`${subject} is not initialized: pending migrations were not checked.`);
    return findings;
  }
  const { MigrationExecutor } = await import('typeorm');
  const pending = await new MigrationExecutor(dataSource as never).getPendingMigrations();
  if (pending.length > 0) {
    findings.push({
      code: FindingCode.PendingMigrations,
      severity: Severity.Critical,
      subject,
      message: `${pending.length} migration(s) have not run: ${pending.map((migration) => migration.name).join(', ')}. Run them (migrationsRun: true or dataSource.runMigrations()).`,
    });
  }
  return findings;
}
