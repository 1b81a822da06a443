import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { describeShadowedPolicies, shadowedPolicies } from './shadowed-policies.js';

/**
 * Warns at boot, through Nest's `Logger` (context `Verdict`), when capabilities or provenance rules run in shadow
 * mode (`enforce: false`, docs/shadow-mode.md): a policy that is not enforced must never be a surprise. Runs once
 * every module has initialised, so the capabilities of providers are registered.
 *
 * @internal Provided by the core module.
 */
@Injectable()
export class ShadowModeWarning implements OnApplicationBootstrap {
  private readonly logger = new Logger('Verdict');

  constructor(private readonly capabilities: CapabilityRegistry) {}

  onApplicationBootstrap(): void {
    const warning = describeShadowedPolicies(shadowedPolicies(this.capabilities.all()));
    if (warning !== null) this.logger.warn(warning);
  }
}
