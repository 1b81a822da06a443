import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { AsrhRun } from './asrh-result.js';
import { AsrhScenarioError } from './asrh-scenario.error.js';
import { AsrhTraceError } from './asrh-trace.error.js';
import { collectScenarioFiles, collectTraceFiles, type AsrhCollectedFile } from './collect-asrh-files.js';
import { evaluateAsrhScenario } from './evaluate-asrh-scenario.js';
import { loadScenario } from './load-scenario.js';
import { loadTrace } from './load-trace.js';

/** What {@link runAsrh} evaluates: scenario and trace files or directories (searched recursively). */
export interface AsrhRunOptions {
  readonly scenarios: readonly string[];
  readonly traces: readonly string[];
}

/**
 * Evaluates every scenario against every trace. Runs come scenario by scenario in argument order (files within a
 * directory sorted by relative path), each against every trace in the same order. `scenario` and `trace` in a run are
 * relative to the directory argument that found them, or the basename for a file argument.
 * Everything is loaded before anything is evaluated: one bad file stops the run with its typed error.
 * @throws AsrhScenarioError for a missing, unreadable or invalid scenario, or a scenario directory without `*.yaml`/`*.yml`
 * @throws AsrhTraceError likewise for traces (`*.json`)
 * @example runAsrh({ scenarios: ['scenarios'], traces: ['traces/denied_tool_call.json'] })
 */
export function runAsrh(options: AsrhRunOptions): AsrhRun[] {
  const scenarios = expand(
    options.scenarios,
    collectScenarioFiles,
    (arg, problem) => new AsrhScenarioError(arg, '$', problem),
  ).map(({ file, relative }) => ({
    relative,
    scenario: loadScenario({ file }),
  }));
  const traces = expand(options.traces, collectTraceFiles, (arg, problem) => new AsrhTraceError(arg, '$', problem)).map(
    ({ file, relative }) => ({
      relative,
      trace: loadTrace({ file }),
    }),
  );
  return scenarios.flatMap(({ relative: scenarioPath, scenario }) =>
    traces.map(({ relative: tracePath, trace }) => ({
      scenario: scenarioPath,
      trace: tracePath,
      ...evaluateAsrhScenario(scenario, trace),
    })),
  );
}

function expand(
  args: readonly string[],
  collect: (dir: string) => AsrhCollectedFile[],
  fail: (arg: string, problem: string) => Error,
): AsrhCollectedFile[] {
  return args.flatMap((arg) => {
    let directory: boolean;
    try {
      directory = statSync(arg).isDirectory();
    } catch {
      throw fail(arg, 'does not exist or cannot be read');
    }
    if (!directory) return [{ file: arg, relative: basename(arg) }];
    const files = collect(arg);
    // An empty directory would make a vacuous run look clean.
    if (files.length === 0) throw fail(arg, 'is a directory with no matching files');
    return files;
  });
}
