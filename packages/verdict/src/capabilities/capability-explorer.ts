import { Inject, Injectable, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModulesContainer } from '@nestjs/core';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import {
  CAPABILITY_REGISTRY_OPTIONS,
  type CapabilityRegistryOptions,
} from './capability-registry-options.interface.js';
import { discoverableCapability } from './capability.decorator.js';
import { CapabilityRegistry } from './capability-registry.js';
import { defineCapability } from './define-capability.js';
import type { CapabilityDefinition } from './capability-definition.js';

/**
 * Finds `@Capability` methods at boot and registers them, then checks every bound tool. Refuses first an
 * application with more than one core module (ADR 0179): each would discover every `@Capability` into its own
 * registry, under its own options, and the last global one would answer every injection.
 */
@Injectable()
export class CapabilityExplorer implements OnModuleInit, OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly registry: CapabilityRegistry,
    @Inject(CAPABILITY_REGISTRY_OPTIONS) private readonly options: CapabilityRegistryOptions,
    private readonly modules: ModulesContainer,
  ) {}

  onModuleInit(): void {
    this.refuseASecondRegistration();
    // `forRoot` takes `isGlobal` out of the options; a `forRootAsync` factory's is never read (Nest reads it beside
    // `useFactory` only), so a module meant to be scoped would silently stay global.
    if ((this.options as { isGlobal?: unknown }).isGlobal !== undefined)
      throw new VerdictConfigurationError(
        '`isGlobal` is not an option the factory can return: it shapes the module, so pass it beside useFactory (VerdictModule.forRootAsync({ isGlobal: false, useFactory })), and leave it out of what the factory returns.',
        { option: 'isGlobal' },
      );
    if (typeof this.options.abilityFactory?.createForContext !== 'function') {
      throw new VerdictConfigurationError(
        "VerdictModule needs an abilityFactory: an object with createForContext(context) returning the actor's CASL ability.",
        { option: 'abilityFactory' },
      );
    }
    const capabilities: unknown = this.options.capabilities ?? [];
    if (!Array.isArray(capabilities))
      throw new VerdictConfigurationError(
        '`capabilities` is not an array: pass capabilities: [defineCapability(options, executor), …], or leave it out.',
        { option: 'capabilities' },
      );
    capabilities.forEach((definition: unknown, index) => {
      if (typeof definition !== 'object' || definition === null)
        throw new VerdictConfigurationError(
          `\`capabilities[${index}]\` is ${definition === null ? 'null' : `a ${typeof definition}`}, not a capability: build each with defineCapability(options, executor).`,
          { option: 'capabilities' },
        );
      this.registry.register(definition as CapabilityDefinition);
    });
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (typeof instance !== 'object' || instance === null) continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const options = this.discovery.getMetadataByDecorator(discoverableCapability, wrapper, method);
        if (options === undefined) continue;
        const declaredAt = `${wrapper.name}.${method}`;
        if (!wrapper.isDependencyTreeStatic()) {
          throw new VerdictConfigurationError(
            `@Capability "${options.name}" is on ${declaredAt}, a request-scoped provider: executors must live on singleton providers.`,
            { capability: options.name },
          );
        }
        const executor = (instance as Record<string, (...args: unknown[]) => unknown>)[method].bind(instance);
        this.registry.register(defineCapability(options, executor, { host: instance, declaredAt }));
      }
    }
  }

  /** One core module (the one module that provides this explorer) per application container. */
  private refuseASecondRegistration(): void {
    let cores = 0;
    for (const module of this.modules.values()) if (module.providers.has(CapabilityExplorer)) cores++;
    if (cores > 1)
      throw new VerdictConfigurationError(
        `VerdictModule is registered more than once (${cores} forRoot/forRootAsync registrations): register it once, in the application's root module, and import that same module where it is needed. A second registration would replace the options, abilityFactory included, of every capability.`,
      );
  }

  onApplicationBootstrap(): void {
    this.registry.completeBoot();
  }
}
