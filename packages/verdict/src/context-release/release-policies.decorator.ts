import { DiscoveryService } from '@nestjs/core';
import type { ReleasePolicy } from './release-policy.js';

/** A provider that declares release routes; mark its class with {@link ReleasePolicies}. */
export interface ReleasePolicyProvider {
  /** Called once at boot; every route returned is registered (a duplicate route stops the application). */
  releasePolicies(): Iterable<ReleasePolicy>;
}

/** @internal The discoverable marker behind {@link ReleasePolicies}. */
export const ReleasePoliciesMarker = DiscoveryService.createDecorator<Record<string, never>>();

/**
 * Registers the routes of the decorated provider at boot, next to `forRoot({ releasePolicies })`. The
 * provider must be a singleton registered in a module and implement {@link ReleasePolicyProvider}.
 *
 * @example
 * @ReleasePolicies()
 * @Injectable()
 * export class AssistantRoutes implements ReleasePolicyProvider {
 *   releasePolicies() {
 *     return [ReleasePolicy.route(Source.application('customer-profile'), Destination.connection('ollama-local', 'local-machine'))
 *       .allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] })];
 *   }
 * }
 */
export function ReleasePolicies(): <T extends abstract new (...args: any[]) => ReleasePolicyProvider>(
  target: T,
) => void {
  return (target) => {
    ReleasePoliciesMarker({})(target);
  };
}
