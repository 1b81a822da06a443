import { Inject, Injectable, Optional } from '@nestjs/common';
import { BUDGET_OPTIONS, type BudgetOptions } from '../budgets/budget-options.interface.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { ClockOptions } from '../shared/clock-options.interface.js';
import { type CliStreams, fail, processStreams } from './cli-output.js';
import { line } from './output-line.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';

/** `budgets prune [--json]`: deletes spend-budget and call-ceiling windows that have ended. */
@Injectable()
export class BudgetsPruneCommand implements CliCommandRunner {
  constructor(
    @Inject(BUDGET_OPTIONS) private readonly options: BudgetOptions & ClockOptions,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {}

  async run(_params: string[], options: { json?: boolean } = {}): Promise<void> {
    const json = options.json === true;
    try {
      const { budgets } = this.options;
      // `null` is no clock, as every mechanism reads it (a destructuring default would take only `undefined`).
      const clock = this.options.clock ?? (() => new Date());
      if (budgets === undefined)
        throw new VerdictConfigurationError('No budget store is configured: pass `budgets` to VerdictModule.forRoot.');
      const pruned = await budgets.prune(clock());
      this.streams.out(json ? JSON.stringify({ pruned }) : line`pruned ${pruned} ended budget window(s)`);
    } catch (error) {
      fail(this.streams, json, (error as Error).message);
    }
  }
}
