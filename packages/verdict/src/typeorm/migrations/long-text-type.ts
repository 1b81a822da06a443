/**
 * The column type of a text that may exceed 64 KiB on `engine`: `longtext` on MySQL/MariaDB, whose `text` holds
 * 64 KiB, `text` elsewhere (unbounded on PostgreSQL and SQLite). Verdict's migrations create such columns with it,
 * and Verdict's entities take the same type (ADR 0116).
 */
export function longTextType(engine: string): 'longtext' | 'text' {
  return ['mysql', 'mariadb'].includes(engine) ? 'longtext' : 'text';
}
