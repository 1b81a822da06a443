import { Command, CommandRunner } from 'nest-commander';
import { ClaimsListCommand } from './claims-list.command.js';
import { ClaimsResolveCommand } from './claims-resolve.command.js';

/** `claims list|resolve`: operator reconciliation of execution claims. */
@Command({ name: 'claims', description: 'Inspect and resolve execution claims', subCommands: [ClaimsListCommand, ClaimsResolveCommand] })
export class ClaimsCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.outputHelp();
    process.exitCode = 2;
  }
}
