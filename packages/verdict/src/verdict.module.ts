import { type DynamicModule, Module } from '@nestjs/common';
import { VerdictCoreHostModule } from './verdict-core-access.module.js';
import { VerdictCoreModule } from './verdict-core.module.js';
import type { ASYNC_OPTIONS_TYPE, OPTIONS_TYPE } from './verdict.module-definition.js';
import { assertModuleOptions, withCheckedOptions } from './verdict-module-options.checks.js';

/**
 * The Verdict module: a facade over the global core module that owns the options, the stores they carry, the
 * capability registry and the pipeline (as `TypeOrmModule` is over its core module). Global by default
 * (`isGlobal: false` to opt out: then import it where Verdict's providers are injected; Verdict's integration
 * modules reach the core either way). Register it once, in the application's root module: a second
 * `forRoot`/`forRootAsync` is refused at boot (ADR 0179); import the same module object where it is needed.
 *
 * @example
 * VerdictModule.forRoot({ abilityFactory: { createForContext: (ctx) => abilityFor(ctx.actor) }, evidence: new InMemoryEvidenceRecorder() })
 * VerdictModule.forRootAsync({ inject: [DataSource, OrderAbilities], useFactory: (ds, abilities) => ({ abilityFactory: abilities, evidence: new TypeOrmEvidenceRecorder(ds) }) })
 */
@Module({})
export class VerdictModule {
  /**
   * Configures Verdict with options known at import time.
   *
   * @throws VerdictConfigurationError when `options` is not an object (`undefined`, `null`, an array).
   */
  static forRoot(options: typeof OPTIONS_TYPE): DynamicModule {
    assertModuleOptions(options);
    return VerdictModule.over(VerdictCoreModule.forRoot(options));
  }

  /**
   * Configures Verdict with options built by a factory (`useFactory` + `inject`, or the `create()` of a `useClass` or
   * `useExisting` class: `VerdictOptionsFactory`). What builds them must be a singleton, and so must everything
   * it injects: a request-scoped one is a `VerdictConfigurationError` at boot, as is a factory that answers anything
   * but an object (ADR 0206).
   */
  static forRootAsync(options: typeof ASYNC_OPTIONS_TYPE): DynamicModule {
    return VerdictModule.over(withCheckedOptions(VerdictCoreModule.forRootAsync(options), options));
  }

  private static over(core: DynamicModule): DynamicModule {
    return { module: VerdictModule, imports: [core, VerdictCoreHostModule.of(core)], exports: [core] };
  }
}
