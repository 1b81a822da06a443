import type { DynamicModule, Type } from '@nestjs/common';
import { ClaimsListCommand } from './claims-list.command.js';
import { ClaimsResolveCommand } from './claims-resolve.command.js';
import { type CliProgramSpec, runCli, type RunCliOptions } from './cli-program.js';
import { RateLimitsPruneCommand } from './rate-limits-prune.command.js';
import { ValidateCommand } from './validate.command.js';
import { EvidencePruneCommand } from './evidence-prune.command.js';
import { EvidenceSealCommand } from './evidence-seal.command.js';
import { EvidenceVerifyCommand } from './evidence-verify.command.js';

const json = { flags: '--json', description: 'Print JSON for scripts' };

/** The operator commands: `claims list|resolve`, `rate-limits prune`, `evidence verify|seal|prune`, `validate`. */
export const VERDICT_CLI: CliProgramSpec = {
  name: 'verdict',
  description:
    'Verdict operator commands: reconcile execution claims, maintain rate-limit windows, verify and prune evidence, audit the wiring',
  commands: [
    {
      name: 'claims',
      description: 'Inspect and resolve execution claims',
      subcommands: [
        {
          name: 'list',
          description: 'List execution claims that are still claimed or indeterminate',
          options: [json],
          runner: ClaimsListCommand,
        },
        {
          name: 'resolve',
          arguments: '<id> <resolution>',
          description: 'Resolve an unresolved execution claim as completed or retryable',
          options: [
            { flags: '--by <id>', description: 'Opaque id of the operator (e.g. operator:7), never PII' },
            { flags: '--reason <text>', description: 'What the investigation found' },
            { flags: '--force', description: 'Resolve a claim whose executor may still be running' },
            json,
          ],
          runner: ClaimsResolveCommand,
        },
      ],
    },
    {
      name: 'rate-limits',
      description: 'Maintain rate-limit windows',
      subcommands: [
        {
          name: 'prune',
          description: 'Delete rate-limit windows that have ended',
          options: [json],
          runner: RateLimitsPruneCommand,
        },
      ],
    },
    {
      name: 'evidence',
      description: 'Verify, seal and prune the evidence hash chains',
      subcommands: [
        {
          name: 'verify',
          description: 'Verify every evidence stream; exit 1 naming the first bad sequence of a broken one',
          options: [json],
          runner: EvidenceVerifyCommand,
        },
        {
          name: 'seal',
          description: 'Chain every evidence record not chained yet',
          options: [json],
          runner: EvidenceSealCommand,
        },
        {
          name: 'prune',
          description: 'Delete evidence recorded before a date, leaving a signed checkpoint so the rest verifies',
          options: [{ flags: '--before <date>', description: 'ISO 8601 date: records before it go' }, json],
          runner: EvidencePruneCommand,
        },
      ],
    },
    {
      name: 'validate',
      description:
        'Audit the wiring (read-only): capabilities, gates and policies; exit 1 on findings at or above --fail-on',
      options: [
        json,
        {
          flags: '--fail-on <severity>',
          description: 'Fail on findings at or above: low, medium, high, critical (default: low)',
        },
        {
          flags: '--local-zone <zone>',
          description: 'A local trust zone, repeatable (default: local-machine); PII released elsewhere is a finding',
          parse: (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
        },
      ],
      runner: ValidateCommand,
    },
  ],
};

/**
 * Runs the operator CLI on `module`, an application module that imports `VerdictModule` and
 * `VerdictCliModule`. Its help names it `verdict` (or `options.name`); usage errors exit 2.
 *
 * @example
 * // cli.ts
 * \@Module({ imports: [AppModule, VerdictCliModule] }) class CliModule {}
 * await runVerdictCli(CliModule);
 * // node dist/cli.js claims list --json
 */
export function runVerdictCli(module: Type | DynamicModule, options: RunCliOptions = {}): Promise<void> {
  return runCli(module, VERDICT_CLI, options);
}
