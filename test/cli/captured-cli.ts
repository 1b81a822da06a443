import { Module } from '@nestjs/common';
import { type OperatorIdentity, runVerdictCli, VerdictCliModule } from '@verdict/nestjs/cli';
import type { NodeScriptOptions, NodeScriptResult } from '@verdict/testing-kit';
import { jobsAppModule } from '../../libs/testing/src/fixtures/jobs-app.module.js';

/**
 * Runs a CLI entry (`runVerdictCli`, `runEvaluationCli`, on explicit arguments) in this process and answers what
 * `runNodeScript` answers for the same entry in a process of its own: the exit code it set (0 when none), and every
 * byte it wrote to stdout and stderr — the commands' own lines and commander's help and usage errors alike — without
 * the seconds a new Node process takes to start. `options` are `runNodeScript`'s: the working directory and the whole
 * environment while the entry runs (both restored after). An exception that would end the process is reported as
 * Node would: exit code 1 and the error on stderr. Leaves `process.exitCode` unset.
 *
 * What only a process of its own proves (the compiled bin starts, parses `process.argv`, exits with the code) stays
 * proven by a spawned run of each command; the other cases of a command run here. Not captured: `console.*` (Jest's
 * console), and anything written after `entry` settles; module state carries over between cases.
 */
export async function capturedCli(
  entry: () => Promise<void>,
  options: NodeScriptOptions = {},
): Promise<NodeScriptResult> {
  const written = { stdout: [] as string[], stderr: [] as string[] };
  const streams = { stdout: process.stdout, stderr: process.stderr } as const;
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write } as const;
  const cwd = process.cwd();
  const env = { ...process.env };
  for (const name of ['stdout', 'stderr'] as const)
    streams[name].write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written[name].push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const callback = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof process.stdout.write;
  process.exitCode = undefined;
  let code: number;
  try {
    if (options.env !== undefined) replaceEnvironment(options.env);
    if (options.cwd !== undefined) process.chdir(options.cwd);
    await entry();
    code = Number(process.exitCode ?? 0);
  } catch (error) {
    written.stderr.push(`${(error as Error)?.stack ?? String(error)}\n`);
    code = 1;
  } finally {
    process.chdir(cwd);
    replaceEnvironment(env);
    streams.stdout.write = writes.stdout;
    streams.stderr.write = writes.stderr;
    process.exitCode = undefined;
  }
  return { code, stdout: written.stdout.join(''), stderr: written.stderr.join('') };
}

/** Makes `process.env` hold exactly the variables of `env`. */
function replaceEnvironment(env: NodeJS.ProcessEnv): void {
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  for (const [name, value] of Object.entries(env)) if (value !== undefined) process.env[name] = value;
}

/**
 * The operator CLI of the jobs application on the SQLite file `database`, run in this process: the module of the
 * testing kit's `jobs-cli.js` fixture, or, given `operatorIdentity`, of `jobs-cli-with-operator-identity.js` and
 * `jobs-cli-with-operator-identity-from-env.js` (the CLI with that hook). Answers as {@link capturedCli}.
 */
export function inProcessJobsCli(database: string, operatorIdentity?: OperatorIdentity) {
  return (...argv: string[]) =>
    capturedCli(() => {
      @Module({
        imports: [
          jobsAppModule(database, async () => 'ran'),
          operatorIdentity === undefined ? VerdictCliModule : VerdictCliModule.forRoot({ operatorIdentity }),
        ],
      })
      class JobsCliModule {}
      return runVerdictCli(JobsCliModule, { argv });
    });
}
