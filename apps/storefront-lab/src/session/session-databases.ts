import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** Where `npm start` keeps each browser session's SQLite database, so the operator CLI can open the same file. */
export const SESSIONS_DIRECTORY = '.lab-data/sessions';

/** A not-yet-existing database file for a new session in `directory` (a random name, never the session's cookie). */
export function newSessionDatabase(directory: string): string {
  mkdirSync(directory, { recursive: true });
  return resolve(directory, `session-${randomBytes(6).toString('hex')}.sqlite`);
}

/** Deletes a session's database file and SQLite's companions (`-wal`, `-shm`, `-journal`). */
export function removeSessionDatabase(database: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${database}${suffix}`, { force: true });
}

/** The command a person runs to list this database's claims, from the repository root (`cwd`). */
export function claimsListCommand(database: string, cwd = process.cwd()): string {
  return `LAB_DATABASE=${relative(cwd, database)} npm run verdict -- claims list`;
}

/** Why the operator CLI has no database to open: what was looked for, and what to do. */
export class LabDatabaseMissingError extends Error {
  readonly code = 'lab_database_missing';
}

/**
 * The database the operator CLI opens: `LAB_DATABASE` when set (it must exist: a mistyped path is an error, never
 * a new empty database that then "verifies"), else the most recently used session database of `directory`.
 */
export function cliDatabase(env: Readonly<Record<string, string | undefined>>, directory: string): string {
  const named = env.LAB_DATABASE;
  if (named !== undefined && named !== '') {
    const database = resolve(named);
    if (!existsSync(database))
      throw new LabDatabaseMissingError(
        `LAB_DATABASE names ${database}, which does not exist. Copy the command the Claims lab shows: it names your browser session's database.`,
      );
    return database;
  }
  const sessions = existsSync(directory)
    ? readdirSync(directory)
        .filter((name) => name.endsWith('.sqlite'))
        .map((name) => join(directory, name))
    : [];
  if (sessions.length === 0)
    throw new LabDatabaseMissingError(
      `No lab session database in ${resolve(directory)}: start the lab (npm start), open it in a browser, and copy the command its Claims lab shows.`,
    );
  return resolve(sessions.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]);
}
