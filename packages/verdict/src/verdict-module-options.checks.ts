import { type DynamicModule, type FactoryProvider, Injectable, type OnModuleInit, type Provider } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { VerdictConfigurationError } from './errors/configuration.error.js';
import type { VerdictModuleOptions } from './verdict-module-options.interface.js';
import { MODULE_OPTIONS_TOKEN } from './verdict.module-definition.js';

/**
 * The class of a `VerdictModule.forRootAsync({ useClass })` (or `useExisting`) options factory: Nest calls its
 * `create()` once, at boot, and the options are what it answers. A singleton, like every provider the options are
 * built from (ADR 0206).
 *
 * @example
 * \@Injectable()
 * class VerdictConfig implements VerdictOptionsFactory {
 *   constructor(private readonly dataSource: DataSource) {}
 *   create(): VerdictModuleOptions {
 *     return { abilityFactory, evidence: new TypeOrmEvidenceRecorder(this.dataSource) };
 *   }
 * }
 * VerdictModule.forRootAsync({ imports: [TypeOrmModule], useClass: VerdictConfig })
 */
export interface VerdictOptionsFactory {
  create(): VerdictModuleOptions | Promise<VerdictModuleOptions>;
}

/** What a value is, for a message: `undefined`, `null`, `an array`, `a string`… */
function described(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** What built the options, as `context.option` of a refusal names it: `forRoot`'s argument or a `forRootAsync` key. */
type OptionsSource = 'options' | 'useFactory' | 'useClass' | 'useExisting';

/**
 * The options as `forRoot` was given them or the `forRootAsync` factory answered them, checked before anything reads
 * them: an object (neither `null` nor an array). `source` says where they came from, for the message; `option` names
 * it in the error's `context.option` (`'options'` for `forRoot`'s argument).
 *
 * @throws VerdictConfigurationError when they are not: the factory answered `undefined` (a missing `return`), `null`,
 *   a primitive, an array or a function, not the options.
 */
export function assertModuleOptions(
  options: unknown,
  source = 'VerdictModule.forRoot was given',
  option: OptionsSource = 'options',
): asserts options is VerdictModuleOptions {
  if (typeof options === 'object' && options !== null && !Array.isArray(options)) return;
  throw new VerdictConfigurationError(
    `${source} ${described(options)}, not the options: return the options object ({ abilityFactory, evidence, … }).`,
    { option },
  );
}

/** How `forRootAsync` was told to build the options, by the options provider's factory (for the scope check). */
const BUILT_WITH = new WeakMap<object, 'inject' | 'useClass' | 'useExisting'>();

/**
 * The core module of `forRootAsync` with its options provider checked: whatever builds the options (`useFactory`, a
 * `useClass` or `useExisting` class's `create()`), what it answers passes {@link assertModuleOptions} before any
 * provider reads it. The provider keeps its token and its `inject`, so its scope is still what it injects decides.
 */
export function withCheckedOptions(
  core: DynamicModule,
  via: { readonly useFactory?: unknown; readonly useClass?: { name: string }; readonly useExisting?: { name: string } },
): DynamicModule {
  // Nest's order: `useFactory`, else `useExisting`, else `useClass`.
  const factoryClass = via.useFactory !== undefined ? undefined : (via.useExisting ?? via.useClass);
  const builtWith =
    factoryClass === undefined ? 'inject' : factoryClass === via.useExisting ? 'useExisting' : 'useClass';
  const source =
    factoryClass === undefined
      ? "VerdictModule.forRootAsync's useFactory returned"
      : `create() of VerdictModule.forRootAsync's ${builtWith} ${factoryClass.name} returned`;
  const providers = (core.providers ?? []).map((provider: Provider): Provider => {
    const candidate = provider as Partial<FactoryProvider>;
    if (candidate.provide !== MODULE_OPTIONS_TOKEN || typeof candidate.useFactory !== 'function') return provider;
    const build = candidate.useFactory as (...dependencies: unknown[]) => unknown;
    const useFactory = async (...dependencies: unknown[]) => {
      const factory = dependencies[0] as Partial<VerdictOptionsFactory> | undefined;
      if (factoryClass !== undefined && typeof factory?.create !== 'function')
        throw new VerdictConfigurationError(
          `VerdictModule.forRootAsync's ${builtWith} ${factoryClass.name} has no create() method: Nest builds the options with create() of that class (implement VerdictOptionsFactory).`,
          { option: builtWith },
        );
      const options: unknown = await build(...dependencies);
      assertModuleOptions(options, source, builtWith === 'inject' ? 'useFactory' : builtWith);
      return options;
    };
    BUILT_WITH.set(useFactory, builtWith);
    return { ...(candidate as FactoryProvider), useFactory };
  });
  return { ...core, providers };
}

/**
 * A name for an injection token or the provider a wrapper holds. An optional `inject` entry
 * (`{ token, optional: true }`) is named by its token.
 */
function tokenName(token: unknown): string {
  if (typeof token === 'function') return token.name || 'an anonymous class';
  if (typeof token === 'object' && token !== null && 'token' in token) return tokenName(token.token);
  return String(token);
}

/**
 * Refuses, at boot, options built from a request-scoped provider. Nest makes every provider that depends on a
 * request-scoped one request-scoped too: the options, then the whole core (the registry, the pipeline, the review
 * lane's worker). None of Verdict's boot checks would run, no worker would start, and every call would fail with
 * "Verdict has not finished booting". This check depends on the module container only, so it stays a singleton and
 * runs whatever the options depend on.
 */
@Injectable()
export class OptionsScopeCheck implements OnModuleInit {
  constructor(private readonly modules: ModulesContainer) {}

  onModuleInit(): void {
    for (const module of this.modules.values()) {
      if (!module.providers.has(OptionsScopeCheck)) continue;
      const options = module.providers.get(MODULE_OPTIONS_TOKEN) as InstanceWrapper | undefined;
      if (options === undefined || options.isDependencyTreeStatic()) continue;
      throw new VerdictConfigurationError(
        `VerdictModule.forRootAsync builds its options from a request-scoped provider (${scopedDependencies(options)}): that would make Verdict request-scoped too, so none of its boot checks would run, the review lane's worker would never start, and every call would fail. Inject singletons only (a provider of the default scope that injects no request-scoped one). What varies per request reaches Verdict as the action context: resolveContext builds it from the request, and abilityFactory.createForContext(context) is called with it on every call.`,
        { option: 'inject' },
      );
    }
  }
}

/** The dependencies of the options provider that are request-scoped (or depend on one), by name. */
function scopedDependencies(options: InstanceWrapper): string {
  const inject = (options.inject ?? []) as unknown[];
  const names = (options.getCtorMetadata() ?? [])
    .map((dependency, index) =>
      dependency !== undefined && !dependency.isDependencyTreeStatic()
        ? tokenName(inject[index] ?? dependency.token)
        : undefined,
    )
    .filter((name): name is string => name !== undefined);
  const builtWith = (options.metatype !== null && BUILT_WITH.get(options.metatype)) || 'inject';
  if (names.length === 0) return 'one of what it injects';
  return `${builtWith === 'inject' ? 'inject of' : builtWith} ${names.join(', ')}`;
}
