import { Command, CommandRunner } from 'nest-commander';
import { RateLimitsPruneCommand } from './rate-limits-prune.command.js';

/** `rate-limits prune`. */
@Command({ name: 'rate-limits', description: 'Maintain rate-limit windows', subCommands: [RateLimitsPruneCommand] })
export class RateLimitsCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.outputHelp();
    process.exitCode = 2;
  }
}
