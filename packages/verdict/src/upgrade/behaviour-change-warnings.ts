import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { MODULE_OPTIONS_TOKEN } from '../verdict.module-definition.js';
import type { VerdictModuleOptions } from '../verdict-module-options.interface.js';
import { behaviourChanges } from './behaviour-changes.js';

/**
 * Warns at boot, through Nest's `Logger` (context `Verdict`), of each behaviour change that applies to the
 * module's options ({@link behaviourChanges}): an upgraded application that compiles and boots unchanged is
 * told which option to set before the new behaviour refuses its users.
 *
 * @internal Provided by the core module.
 */
@Injectable()
export class BehaviourChangeWarnings implements OnModuleInit {
  private readonly logger = new Logger('Verdict');

  constructor(@Inject(MODULE_OPTIONS_TOKEN) private readonly options: VerdictModuleOptions) {}

  onModuleInit(): void {
    for (const change of behaviourChanges(this.options)) this.logger.warn(`${change.option}: ${change.message}`);
  }
}
