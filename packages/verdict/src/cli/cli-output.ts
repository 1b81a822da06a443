/** Where a command writes: stdout for results, stderr for errors. Swappable in tests. */
export interface CliStreams {
  out(text: string): void;
  err(text: string): void;
}

export const processStreams: CliStreams = {
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
};

/** A plain aligned text table for people; scripts use `--json`. */
export function table(rows: readonly Record<string, string | number>[], columns: readonly string[]): string {
  if (rows.length === 0) return '(none)';
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => String(row[column]).length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [
    line(columns),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map((row) => line(columns.map((c) => String(row[c])))),
  ].join('\n');
}

/** Reports a failed command: the message on stderr (JSON with `--json`) and a non-zero exit code. */
export function fail(streams: CliStreams, json: boolean, message: string, code = 1): void {
  streams.err(json ? JSON.stringify({ error: message }) : `error: ${message}`);
  process.exitCode = code;
}
