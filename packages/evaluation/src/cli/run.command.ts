import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  CLI_STREAMS,
  type CliCommandRunner,
  type CliStreams,
  fail,
  line,
  processStreams,
  table,
} from '@verdict/nestjs/cli';
import { SingleBar } from 'cli-progress';
import { writeFileSync } from 'node:fs';
import { CASE_PURPOSES } from '../cases/case-purpose.js';
import type { EvaluationReport } from '../reports/evaluation-report.js';
import { loadSuite } from './load-suite.js';
import { unwritableOutput } from './writable-output.js';

/** Suites at least this long get a progress bar (on an interactive terminal). */
const PROGRESS_BAR_FROM = 20;

/**
 * `run <suite module> [--out <file>]`: runs a suite module (see `loadSuite`), prints a table per purpose
 * and writes the `verdict.evaluation-report.v1` report (default `verdict-report.json`). Case failures are
 * results, not command failures: gate merges with `compare`. Exit code 2 when the suite cannot be loaded or the
 * report cannot be written where `--out` says (checked before the suite runs).
 */
@Injectable()
export class RunCommand implements CliCommandRunner {
  constructor(@Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams) {}

  async run([file]: string[], options: { out?: string } = {}): Promise<void> {
    const out = options.out ?? 'verdict-report.json';
    const unwritable = unwritableOutput(out);
    if (unwritable !== null) return fail(this.streams, false, unwritable, 2);
    let loaded;
    try {
      loaded = await loadSuite(file);
    } catch (error) {
      return fail(this.streams, false, (error as Error).message, 2);
    }
    const { suite, dispose } = loaded;
    const bar =
      suite.cases.length >= PROGRESS_BAR_FROM && process.stderr.isTTY
        ? new SingleBar({ stream: process.stderr, clearOnComplete: true })
        : null;
    bar?.start(suite.cases.length, 0);
    try {
      const result = await suite.run({ onCaseFinished: ({ completed }) => bar?.update(completed) });
      bar?.stop();
      writeFileSync(out, result.toJson());
      this.streams.out(summary(result.toReport()));
      this.streams.out(line`report written to ${out}`);
    } finally {
      bar?.stop();
      await dispose();
    }
  }
}

/** A table per purpose and its score line. */
function summary(report: EvaluationReport): string {
  return CASE_PURPOSES.map((purpose) => {
    const cases = report.cases.filter((c) => c.purpose === purpose);
    const rows = cases.map((c) => ({
      case: c.id,
      version: c.version,
      status: c.status,
      'failed assertions':
        c.assertions
          .filter((a) => !a.passed)
          .map((a) => a.id)
          .join(', ') || (c.harnessError ? `harness error: ${c.harnessError.errorClass}` : '-'),
    }));
    const { passed, failed, errors, pending, passRate } = report.scores[purpose];
    const rate = passRate === null ? 'n/a' : `${(passRate * 100).toFixed(1)}%`;
    return [
      `${purpose}: ${passed} passed, ${failed} failed, ${errors} errors, ${pending} pending, pass rate ${rate}`,
      table(rows, ['case', 'version', 'status', 'failed assertions']),
    ].join('\n');
  }).join('\n\n');
}
