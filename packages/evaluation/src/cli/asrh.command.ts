import { Inject, Injectable, Optional } from '@nestjs/common';
import { CLI_STREAMS, type CliCommandRunner, type CliStreams, fail, processStreams, table } from '@verdict/nestjs/cli';
import { runAsrh } from '../asrh/run-asrh.js';

/**
 * `asrh <scenario file|dir>… --trace <file|dir> [--trace …] [--json]`: every scenario against every trace,
 * in the OWASP Agent Security Regression Harness format. `--json` prints one array of
 * `{scenario, trace, result, assertions: [{id, result, evidence}]}` with paths relative to the directories
 * given. Exit code 1 when any run fails or errors, 2 when a file cannot be loaded.
 */
@Injectable()
export class AsrhCommand implements CliCommandRunner {
  constructor(@Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams) {}

  async run(scenarios: string[], options: { trace?: string[]; json?: boolean } = {}): Promise<void> {
    const json = options.json === true;
    const traces = options.trace ?? [];
    if (traces.length === 0) return fail(this.streams, json, 'give at least one --trace <file|dir>', 2);
    let runs;
    try {
      runs = runAsrh({ scenarios, traces });
    } catch (error) {
      return fail(this.streams, json, (error as Error).message, 2);
    }
    if (json) this.streams.out(JSON.stringify(runs, null, 2));
    else {
      const rows = runs.map((run) => ({
        scenario: run.scenario,
        trace: run.trace,
        result: run.result,
        'failed assertions':
          run.assertions
            .filter((assertion) => assertion.result === 'fail' || assertion.result === 'error')
            .map((assertion) => assertion.id)
            .join(', ') || '-',
      }));
      this.streams.out(table(rows, ['scenario', 'trace', 'result', 'failed assertions']));
    }
    if (runs.some((run) => run.result === 'fail' || run.result === 'error')) process.exitCode = 1;
  }
}
