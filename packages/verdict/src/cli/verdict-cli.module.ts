import { type DynamicModule, Module } from '@nestjs/common';
import { type CliStreams, printableStreams } from './cli-output.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import { ClaimsListCommand } from './claims-list.command.js';
import { ClaimsResolveCommand } from './claims-resolve.command.js';
import { EvidenceListCommand } from './evidence-list.command.js';
import { EvidenceShowCommand } from './evidence-show.command.js';
import { EvidenceShadowSummaryCommand } from './evidence-shadow-summary.command.js';
import { RateLimitsPruneCommand } from './rate-limits-prune.command.js';
import { BudgetsPruneCommand } from './budgets-prune.command.js';
import { TaintPruneCommand } from './taint-prune.command.js';
import { ValidateCommand } from './validate.command.js';
import { ContainListCommand } from './contain-list.command.js';
import { CONTAINMENT_SWITCH_COMMANDS } from './containment-switch.command.js';
import { EvidencePruneCommand } from './evidence-prune.command.js';
import { EvidenceSealCommand } from './evidence-seal.command.js';
import { EvidenceVerifyCommand } from './evidence-verify.command.js';
import { VerdictAuditModule } from '../audit/verdict-audit.module.js';
import { MCP_CLI_COMMANDS } from './mcp-cli-commands.js';
import { OPERATOR_IDENTITY, type OperatorIdentity } from './operator-identity.js';
import { VerdictCoreAccessModule } from '../verdict-core-access.module.js';

/** Options of {@link VerdictCliModule.forRoot}. */
export interface VerdictCliOptions {
  /** Who runs the CLI, recorded next to `--by` on each claim resolution and kill-switch engagement or release. Default: `osOperatorIdentity` (the OS user). */
  readonly operatorIdentity?: OperatorIdentity;
  /**
   * Where commands write. Default: the process's stdout and stderr. Either way, what a command writes is made printable
   * first: a control, format or separator character other than a line break or a tab is written as its `\uXXXX` escape.
   */
  readonly streams?: CliStreams;
}

/**
 * The operator CLI's commands. Import it next to your `VerdictModule.forRoot(...)` in a CLI entry point
 * and run it with `runVerdictCli` (its help names it `verdict`).
 *
 * @example
 * // cli.ts
 * \@Module({ imports: [AppModule, VerdictCliModule] }) class CliModule {}
 * await runVerdictCli(CliModule);
 * // node dist/cli.js claims list --json
 */
@Module({
  imports: [VerdictCoreAccessModule, VerdictAuditModule],
  providers: [
    ClaimsListCommand,
    ClaimsResolveCommand,
    EvidenceListCommand,
    EvidenceShowCommand,
    EvidenceShadowSummaryCommand,
    RateLimitsPruneCommand,
    BudgetsPruneCommand,
    TaintPruneCommand,
    ValidateCommand,
    ContainListCommand,
    ...CONTAINMENT_SWITCH_COMMANDS,
    EvidenceVerifyCommand,
    EvidenceSealCommand,
    EvidencePruneCommand,
    ...MCP_CLI_COMMANDS,
  ],
})
export class VerdictCliModule {
  /**
   * The CLI with its hooks: `operatorIdentity` says who runs it (default: the OS user).
   *
   * @example
   * \@Module({ imports: [AppModule, VerdictCliModule.forRoot({ operatorIdentity: () => `sso:${session.subject}` })] }) class CliModule {}
   */
  static forRoot(options: VerdictCliOptions = {}): DynamicModule {
    const providers = [];
    if (options.operatorIdentity !== undefined)
      providers.push({ provide: OPERATOR_IDENTITY, useValue: options.operatorIdentity });
    if (options.streams !== undefined)
      providers.push({ provide: CLI_STREAMS, useValue: printableStreams(options.streams) });
    return { module: VerdictCliModule, providers };
  }
}
