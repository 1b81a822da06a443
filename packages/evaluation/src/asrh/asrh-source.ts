import { readFileSync } from 'node:fs';

/**
 * Where a scenario or trace comes from: a file to read, or text already in memory (`name` labels it in errors,
 * default `<text>`).
 */
export type AsrhSource = { readonly file: string } | { readonly text: string; readonly name?: string };

/** Reads a source; `fail(name, problem, cause)` builds the caller's typed error. */
export function readAsrhSource(
  source: AsrhSource,
  fail: (name: string, problem: string, cause: unknown) => Error,
): { name: string; text: string } {
  if ('file' in source) {
    try {
      return { name: source.file, text: readFileSync(source.file, 'utf8') };
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException | undefined)?.code;
      throw fail(source.file, `cannot be read${code ? ` (${code})` : ''}`, cause);
    }
  }
  return { name: source.name ?? '<text>', text: source.text };
}
