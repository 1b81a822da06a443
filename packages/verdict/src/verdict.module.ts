import { type DynamicModule, Module } from '@nestjs/common';
import { VerdictCoreHostModule } from './verdict-core-access.module.js';
import { VerdictCoreModule } from './verdict-core.module.js';
import type { ASYNC_OPTIONS_TYPE, OPTIONS_TYPE } from './verdict.module-definition.js';

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
  /** Configures Verdict with options known at import time. */
  static forRoot(options: typeof OPTIONS_TYPE): DynamicModule {
    return VerdictModule.over(VerdictCoreModule.forRoot(options));
  }

  /** Configures Verdict with options built by a factory (`useFactory` + `inject`, `useClass` or `useExisting`). */
  static forRootAsync(options: typeof ASYNC_OPTIONS_TYPE): DynamicModule {
    return VerdictModule.over(VerdictCoreModule.forRootAsync(options));
  }

  private static over(core: DynamicModule): DynamicModule {
    return { module: VerdictModule, imports: [core, VerdictCoreHostModule.of(core)], exports: [core] };
  }
}
