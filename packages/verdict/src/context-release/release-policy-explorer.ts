import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { CONTEXT_RELEASE_OPTIONS, type ContextReleaseOptions } from './context-release-options.interface.js';
import { ReleasePoliciesMarker, type ReleasePolicyProvider } from './release-policies.decorator.js';
import { ReleasePolicyRegistry } from './release-policy-registry.js';
import type { ReleasePolicy } from './release-policy.js';

/** Registers the release routes of the module options and of `@ReleasePolicies()` providers at boot. */
@Injectable()
export class ReleasePolicyExplorer implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly registry: ReleasePolicyRegistry,
    @Inject(CONTEXT_RELEASE_OPTIONS) private readonly options: ContextReleaseOptions,
  ) {}

  onModuleInit(): void {
    // Only `undefined` is "no routes": a `null` from a `forRootAsync` factory is refused as any other non-array.
    const configured: unknown = this.options.releasePolicies === undefined ? [] : this.options.releasePolicies;
    if (!Array.isArray(configured))
      throw new VerdictConfigurationError(
        `VerdictModule releasePolicies must be an array of ReleasePolicy, not ${configured === null ? 'null' : typeof configured === 'object' ? 'an object' : `a ${typeof configured}`}: leave it out for no routes.`,
        { option: 'releasePolicies' },
      );
    (configured as readonly ReleasePolicy[]).forEach((policy, index) =>
      this.registry.register(policy, `VerdictModule releasePolicies[${index}]`),
    );
    for (const wrapper of this.discovery.getProviders({ metadataKey: ReleasePoliciesMarker.KEY })) {
      const declaredAt = String(wrapper.name);
      if (!wrapper.isDependencyTreeStatic()) {
        throw new VerdictConfigurationError(
          `@ReleasePolicies() is on ${declaredAt}, a request-scoped provider: declare routes on a singleton provider.`,
        );
      }
      const instance = wrapper.instance as Partial<ReleasePolicyProvider> | null | undefined;
      if (typeof instance?.releasePolicies !== 'function') {
        throw new VerdictConfigurationError(
          `@ReleasePolicies() is on ${declaredAt}, which has no releasePolicies() method returning its routes.`,
        );
      }
      for (const policy of instance.releasePolicies()) this.registry.register(policy, declaredAt);
    }
  }
}
