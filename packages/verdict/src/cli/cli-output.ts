import { escapedLine, line } from './output-line.js';
import { printableOutput } from './printable-text.js';

/** Where a command writes: stdout for results, stderr for errors. Swappable in tests. */
export interface CliStreams {
  out(text: string): void;
  err(text: string): void;
}

/**
 * `streams` writing only what prints as itself (`printableOutput`, ADR 0154): line breaks and tabs stay, every other
 * control, format or separator character is written as its `\uXXXX` escape. `VerdictCliModule.forRoot({ streams })`
 * wraps the streams it is given in it.
 */
export function printableStreams(streams: CliStreams): CliStreams {
  return {
    out: (text) => streams.out(printableOutput(text)),
    err: (text) => streams.err(printableOutput(text)),
  };
}

/** The process's stdout and stderr, a line per text, printable ({@link printableStreams}). */
export const processStreams: CliStreams = printableStreams({
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
});

/**
 * A plain aligned text table for people; scripts use `--json`. Each cell stays on its row: it is written as
 * {@link line} writes a value ({@link escapedLine}), its line breaks, tabs and other characters that would not print
 * as themselves escaped (ADR 0154).
 */
export function table(rows: readonly Record<string, string | number>[], columns: readonly string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((row) => Object.fromEntries(columns.map((column) => [column, escapedLine(row[column])])));
  const widths = columns.map((column) => Math.max(column.length, ...cells.map((row) => row[column]!.length)));
  const joined = (cells: readonly string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [
    joined(columns),
    joined(widths.map((w) => '-'.repeat(w))),
    ...cells.map((row) => joined(columns.map((c) => row[c]!))),
  ].join('\n');
}

/** Reports a failed command: the message on stderr, on one line (JSON with `--json`), and a non-zero exit code. */
export function fail(streams: CliStreams, json: boolean, message: string, code = 1): void {
  // One line: a message may quote an argument or a stored text, whose line breaks must not start lines of their own.
  streams.err(json ? JSON.stringify({ error: message }) : line`error: ${message}`);
  process.exitCode = code;
}
