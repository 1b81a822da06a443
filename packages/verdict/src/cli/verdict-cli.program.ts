import type { DynamicModule, Type } from '@nestjs/common';
import { ClaimsListCommand } from './claims-list.command.js';
import { ClaimsResolveCommand } from './claims-resolve.command.js';
import { EvidenceListCommand } from './evidence-list.command.js';
import { EvidenceShowCommand } from './evidence-show.command.js';
import { EvidenceShadowSummaryCommand } from './evidence-shadow-summary.command.js';
import { type CliCommandSpec, type CliProgramSpec, runCli, type RunCliOptions } from './cli-program.js';
import { RateLimitsPruneCommand } from './rate-limits-prune.command.js';
import { BudgetsPruneCommand } from './budgets-prune.command.js';
import { TaintPruneCommand } from './taint-prune.command.js';
import { failOnSeverity, ValidateCommand, validateBootFailed } from './validate.command.js';
import { ContainListCommand } from './contain-list.command.js';
import {
  ContainActorCommand,
  ContainCapabilityCommand,
  ContainTenantCommand,
  ReleaseActorCommand,
  ReleaseCapabilityCommand,
  ReleaseTenantCommand,
} from './containment-switch.command.js';
import { EvidencePruneCommand } from './evidence-prune.command.js';
import { EvidenceSealCommand } from './evidence-seal.command.js';
import { EvidenceVerifyCommand } from './evidence-verify.command.js';
import { headerOption } from './listed-mcp-pins.js';
import { McpDiffCommand } from './mcp-diff.command.js';
import { McpPinCommand } from './mcp-pin.command.js';
import { toolNamingOptions } from './mcp-tool-naming-flags.js';

const json = { flags: '--json', description: 'Print JSON for scripts' };
const onlyCapability = { flags: '--capability <name>', description: 'Only this capability' };
const since = { flags: '--since <instant>', description: 'Recorded at or after (ISO 8601, e.g. 2031-01-01T00:00:00Z)' };
const until = { flags: '--until <instant>', description: 'Recorded before (ISO 8601)' };
const mcpLockfile = { flags: '--lockfile <file>', description: 'The MCP lockfile (default: verdict-mcp.lock.json)' };
const attribution = [
  { flags: '--by <id>', description: 'Opaque id of the operator (e.g. operator:7), never PII' },
  { flags: '--reason <text>', description: 'Why (an incident number, not personal data): recorded in evidence' },
  json,
];
const switches = (
  verb: string,
  runners: readonly [CliCommandSpec['runner'], CliCommandSpec['runner'], CliCommandSpec['runner']],
) => [
  {
    name: 'capability',
    arguments: '<name>',
    description: `${verb} a capability for everyone`,
    options: attribution,
    runner: runners[0],
  },
  {
    name: 'actor',
    arguments: '<key>',
    description: `${verb} one actor (the key the module's actorKey gives)`,
    options: attribution,
    runner: runners[1],
  },
  { name: 'tenant', arguments: '<id>', description: `${verb} one tenant`, options: attribution, runner: runners[2] },
];

/** The operator commands: `claims list|resolve`, `evidence list|show|shadow-summary|verify|seal|prune`, `rate-limits prune`, `budgets prune`, `taint prune`, `contain …|list`, `release …`, `mcp pin|diff`, `validate`. */
export const VERDICT_CLI: CliProgramSpec = {
  name: 'verdict',
  description:
    'Verdict operator commands: reconcile execution claims, read, verify and prune evidence, maintain rate-limit windows and the taint ledger, contain and release, audit the wiring',
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
      name: 'evidence',
      description: 'Read, verify, seal and prune decision evidence',
      subcommands: [
        {
          name: 'list',
          description: 'List decision records, newest first',
          options: [
            onlyCapability,
            {
              flags: '--disposition <disposition>',
              description: 'Only this disposition (permit, deny, would_deny, ...)',
            },
            { flags: '--shadow', description: 'Only what shadow mode did not enforce (would_deny, would_confirm)' },
            { flags: '--stage <stage>', description: 'Only this stage (proposal, execution, ...)' },
            {
              flags: '--actor <fingerprint>',
              description: "Only this actor's fingerprint: actorFingerprint(context), sha256 of the actor key",
            },
            { flags: '--tool-call <fingerprint>', description: 'Only this tool-call fingerprint (sha256 of the id)' },
            since,
            until,
            { flags: '--limit <n>', description: 'At most n records (default 100, at most 1000)' },
            {
              flags: '--after <cursor>',
              description: 'Only the records after the one this cursor names: the next page (a full page prints it)',
            },
            json,
          ],
          runner: EvidenceListCommand,
        },
        {
          name: 'show',
          arguments: '<correlation-id>',
          description: "One proposal's records as a stage timeline",
          options: [json],
          runner: EvidenceShowCommand,
        },
        {
          name: 'shadow-summary',
          description: 'What enforcement would have refused in shadow mode, per capability and reason, with counts',
          options: [onlyCapability, since, until, json],
          runner: EvidenceShadowSummaryCommand,
        },
        {
          name: 'verify',
          description: 'Verify every evidence stream; exit 1 naming the first bad sequence of a broken one',
          options: [
            {
              flags: '--witness <file>',
              description:
                'An earlier `evidence verify --json` kept outside the database: each stream must still hold its checkpoint head',
            },
            json,
          ],
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
      name: 'budgets',
      description: 'Maintain spend-budget and call-ceiling windows',
      subcommands: [
        {
          name: 'prune',
          description: 'Delete budget windows that have ended',
          options: [json],
          runner: BudgetsPruneCommand,
        },
      ],
    },
    {
      name: 'taint',
      description: 'Maintain the taint ledger',
      subcommands: [
        {
          name: 'prune',
          description: 'Delete taint entries whose retention has passed',
          options: [json],
          runner: TaintPruneCommand,
        },
      ],
    },
    {
      name: 'contain',
      description: 'Engage a kill switch (refused everywhere within the containment cache TTL), or list them',
      subcommands: [
        ...switches('Contain', [ContainCapabilityCommand, ContainActorCommand, ContainTenantCommand]),
        {
          name: 'list',
          description: 'List engaged kill switches, oldest first',
          options: [json],
          runner: ContainListCommand,
        },
      ],
    },
    {
      name: 'release',
      description: 'Release an engaged kill switch',
      subcommands: switches('Release', [ReleaseCapabilityCommand, ReleaseActorCommand, ReleaseTenantCommand]),
    },
    {
      name: 'mcp',
      description: 'Review the tools of the MCP servers agents use: pin their descriptions and schemas, diff them',
      subcommands: [
        {
          name: 'pin',
          arguments: '<server> [url]',
          description:
            "Write the server's listed tools (description and schema fingerprints) to the lockfile; url: default the one it records",
          options: [mcpLockfile, headerOption, ...toolNamingOptions, json],
          runner: McpPinCommand,
        },
        {
          name: 'diff',
          arguments: '<server> [url]',
          description: 'Show what the server lists now against the lockfile; exit 1 when something changed',
          options: [mcpLockfile, headerOption, ...toolNamingOptions, json],
          runner: McpDiffCommand,
        },
      ],
    },
    {
      name: 'validate',
      description:
        'Audit the wiring (read-only): capabilities, gates and policies; exit 1 on findings at or above --fail-on, 3 when the audit itself fails',
      options: [
        json,
        {
          flags: '--fail-on <severity>',
          description: 'Fail on findings at or above: low, medium, high, critical (default: low)',
          // Refused while the arguments are parsed: a usage error exits 2 before the application boots.
          parse: failOnSeverity,
        },
        {
          flags: '--local-zone <zone>',
          description: 'A local trust zone, repeatable (default: local-machine); PII released elsewhere is a finding',
          parse: (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
        },
      ],
      runner: ValidateCommand,
      bootFailed: validateBootFailed,
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
