import { Injectable } from '@nestjs/common';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { Destination } from './destination.js';
import { ReleasePolicy } from './release-policy.js';
import { routeKey } from './release-route.js';
import type { Source } from './source.js';

/**
 * Every registered release route, keyed exactly by source kind and name, connection and trust zone.
 * Filled at boot from `forRoot({ releasePolicies })` and `@ReleasePolicies()` providers.
 */
@Injectable()
export class ReleasePolicyRegistry {
  private readonly policies = new Map<string, { readonly policy: ReleasePolicy; readonly declaredAt: string }>();

  /**
   * Registers one route.
   * @throws VerdictConfigurationError for something that is not a `ReleasePolicy`, or a route registered twice.
   */
  register(policy: ReleasePolicy, declaredAt = 'VerdictModule options'): void {
    if (!(policy instanceof ReleasePolicy)) {
      throw new VerdictConfigurationError(
        `${declaredAt}: release policies must be built with ReleasePolicy.route(source, destination).allow(...).`,
      );
    }
    const existing = this.policies.get(policy.key);
    if (existing !== undefined) {
      throw new VerdictConfigurationError(
        `Release route ${policy.key} is registered twice: at ${existing.declaredAt} and at ${declaredAt}. Keep one policy per route.`,
        { route: policy.key },
      );
    }
    this.policies.set(policy.key, { policy, declaredAt });
  }

  /** The policy of exactly this route, or `undefined`. */
  find(source: Source, destination: Destination): ReleasePolicy | undefined {
    return this.policies.get(routeKey(source, destination))?.policy;
  }

  all(): readonly ReleasePolicy[] {
    return [...this.policies.values()].map((entry) => entry.policy);
  }
}
