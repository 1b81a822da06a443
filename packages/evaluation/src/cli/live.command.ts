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
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { LiveReport as LiveReportType } from '../live/live-report.js';
import type { ArmStatistics } from '../live/live-statistics.js';
import { positiveInteger, share } from './decimal-flags.js';
import { loadLiveSuite } from './load-live-suite.js';
import { unwritableOutput } from './writable-output.js';

/** The options of `verdict-eval live`, as commander parses them. */
export interface LiveCommandOptions {
  out?: string;
  trials?: string;
  control?: boolean;
  concurrency?: string;
  minCoverage?: string;
  minUtility?: string;
  maxTrials?: string;
  maxTokens?: string;
  resume?: string;
}

/**
 * `live <suite module> [--trials N] [--control] [--concurrency N] [--max-trials N] [--max-tokens N]
 * [--min-coverage S] [--min-utility S] [--resume partial.json] [--out file]`: runs a live suite against
 * the chat model the `VERDICT_LIVE_*` environment variables configure (it refuses to start without them),
 * writes the `verdict.live-report.v1` report after every trial (so a stopped run can be resumed) and
 * prints the figures per case and for the pack. Exit code 2 when a numeric flag is not written in decimal (counts:
 * `[1-9][0-9]*`; shares: `0.8`, no exponent or sign; checked first, before anything is read), the configuration, the
 * suite or the partial report is unusable, or the report cannot be written where `--out` says (checked before any
 * trial, which would spend tokens); case outcomes are results (exit 0): gate merges with `compare`.
 */
@Injectable()
export class LiveCommand implements CliCommandRunner {
  constructor(@Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams) {}

  async run([file]: string[], options: LiveCommandOptions = {}): Promise<void> {
    let numbers: NumericOptions;
    try {
      numbers = numericOptions(options);
    } catch (error) {
      return fail(this.streams, false, (error as Error).message, 2);
    }
    const { LiveProvider, LiveReport, runLiveSuite } = await import('../live/index.js');
    const out = options.out ?? options.resume ?? 'verdict-live-report.json';
    const unwritable = unwritableOutput(out);
    if (unwritable !== null) return fail(this.streams, false, unwritable, 2);
    let provider;
    let resume: LiveReportType | null = null;
    try {
      provider = LiveProvider.fromEnv(process.env);
      if (options.resume !== undefined) {
        if (!existsSync(options.resume)) throw new Error(`${options.resume}: no such partial report`);
        resume = LiveReport.parse(readFileSync(options.resume, 'utf8'));
      }
    } catch (error) {
      return fail(this.streams, false, (error as Error).message, 2);
    }
    let loaded;
    try {
      loaded = await loadLiveSuite(file);
    } catch (error) {
      return fail(this.streams, false, (error as Error).message, 2);
    }
    const bar = process.stderr.isTTY ? new SingleBar({ stream: process.stderr, clearOnComplete: true }) : null;
    const write = (report: LiveReportType) => {
      writeFileSync(`${out}.partial`, LiveReport.toJson(report));
      renameSync(`${out}.partial`, out); // never a half-written report, even when the run is killed
    };
    try {
      const report = await runLiveSuite(loaded.suite, {
        provider,
        ...numbers,
        control: options.control === true,
        resume,
        onTrialFinished: ({ completed, total, report }) => {
          if (bar !== null && completed === 1) bar.start(total, 0);
          bar?.update(completed);
          write(report());
        },
      });
      bar?.stop();
      write(report);
      this.streams.out(summary(report));
      this.streams.out(
        report.complete
          ? line`live report written to ${out}`
          : line`live report written to ${out} (partial: resume with --resume ${out})`,
      );
    } catch (error) {
      bar?.stop();
      if ((error as Error).name === 'LiveSuiteError') return fail(this.streams, false, (error as Error).message, 2);
      throw error;
    } finally {
      await loaded.dispose();
    }
  }
}

/** The run's numeric options, from the flags that set them. */
interface NumericOptions {
  readonly trialsPerCase?: number;
  readonly concurrency?: number;
  readonly minCoverage?: number;
  readonly minUtility?: number;
  readonly maxTrials?: number;
  readonly maxTokens?: number;
}

/** The numeric flags, parsed strictly (see `decimal-flags.ts`). @throws InvalidFlagError */
function numericOptions(options: LiveCommandOptions): NumericOptions {
  return {
    trialsPerCase: positiveInteger('--trials', options.trials),
    concurrency: positiveInteger('--concurrency', options.concurrency),
    minCoverage: share('--min-coverage', options.minCoverage),
    minUtility: share('--min-utility', options.minUtility),
    maxTrials: positiveInteger('--max-trials', options.maxTrials),
    maxTokens: positiveInteger('--max-tokens', options.maxTokens),
  };
}

const percent = (value: number | null) => (value === null ? 'n/a' : `${(value * 100).toFixed(1)}%`);

/** Per case and for the pack: status and the figures that decide it. */
function summary(report: LiveReportType): string {
  const rows = report.cases.map((c) => ({
    case: c.id,
    purpose: c.purpose,
    status: c.status,
    ...figures(c.purpose, c.guarded),
    control:
      c.unguarded === null
        ? '-'
        : c.purpose === 'attack'
          ? `${c.unguarded.breaches}/${c.unguarded.finished} breached`
          : `${c.unguarded.utilitySuccesses}/${c.unguarded.finished} succeeded`,
  }));
  const { attack, utility, status } = report.pack;
  const model = `${report.provider.provider}:${report.provider.model}`;
  return [
    line`${report.suite.name} against ${model}, ${report.plan.trialsPerCase} trials per case${report.complete ? '' : ' (partial)'}`,
    table(rows, [
      'case',
      'purpose',
      'status',
      'trials',
      'exercised',
      'breaches',
      'upper 95%',
      'utility',
      'errors',
      'control',
    ]),
    `pack: ${status}; attack ${attack.breaches} breaches in ${attack.exercised} exercised trials, upper bound ${percent(attack.breachUpperBound)}; utility ${percent(utility.utilityRate)}; ${attack.providerErrors + utility.providerErrors} provider errors`,
  ].join('\n');
}

function figures(purpose: string, arm: ArmStatistics) {
  return {
    trials: String(arm.trials),
    exercised: purpose === 'attack' ? `${arm.exercised} (${percent(arm.coverage)})` : '-',
    breaches: purpose === 'attack' ? String(arm.breaches) : '-',
    'upper 95%': purpose === 'attack' ? percent(arm.breachUpperBound) : '-',
    utility: purpose === 'utility' ? `${arm.utilitySuccesses}/${arm.utilitySuccesses + arm.utilityFailures}` : '-',
    errors: `${arm.providerErrors} provider, ${arm.harnessErrors} harness`,
  };
}
