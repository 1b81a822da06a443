import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { BEHAVIOUR_CHANGE_OPTIONS, type BehaviourChangeOptions } from './behaviour-change-options.interface.js';
import { assertBehaviourChangeAcknowledgements } from './behaviour-change-acknowledgements.js';
import { behaviourChanges } from './behaviour-changes.js';

/**
 * Warns at boot, through Nest's `Logger` (context `Verdict`), of each behaviour change that applies to the
 * module's options and capabilities ({@link behaviourChanges}): an upgraded application that compiles and boots
 * unchanged is told which option to set before the new behaviour refuses its users. It runs once every module
 * has initialised, so the capabilities of providers are registered. An acknowledgement option of another value
 * than its own fails the boot ({@link assertBehaviourChangeAcknowledgements}).
 *
 * @internal Provided by the core module.
 */
@Injectable()
export class BehaviourChangeWarnings implements OnApplicationBootstrap {
  private readonly logger = new Logger('Verdict');

  constructor(
    @Inject(BEHAVIOUR_CHANGE_OPTIONS) private readonly options: BehaviourChangeOptions,
    private readonly capabilities: CapabilityRegistry,
  ) {
    assertBehaviourChangeAcknowledgements(options);
  }

  onApplicationBootstrap(): void {
    for (const change of behaviourChanges(this.options, this.capabilities.all()))
      this.logger.warn(`${change.option}: ${change.message}`);
  }
}
