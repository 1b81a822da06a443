import { Command, CommandRunner } from 'nest-commander';
import { BaselineWriteCommand } from './baseline-write.command.js';

/** `baseline write`: baselines are reports checked into the repository. */
@Command({ name: 'baseline', description: 'Manage evaluation baselines', subCommands: [BaselineWriteCommand] })
export class BaselineCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.outputHelp();
    process.exitCode = 2;
  }
}
