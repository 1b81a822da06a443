import { type DynamicModule, type InjectionToken, Module } from '@nestjs/common';
import { CORE_EXPORTS } from './verdict-core.module.js';

/**
 * The internal token under which the core's export `token` reaches Verdict's own modules (never exported). Its
 * description names the registration, so an integration module imported without `VerdictModule.forRoot` fails
 * naming it.
 */
const hostTokens = new Map<InjectionToken, symbol>(
  CORE_EXPORTS.map((token) => [
    token,
    Symbol(`${typeof token === 'function' ? token.name : String(token)} of VerdictModule.forRoot`),
  ]),
);

function hostTokenOf(token: InjectionToken): symbol {
  return hostTokens.get(token)!;
}

/**
 * Always global, one per core: each core export under an internal token, so Verdict's own modules reach the core
 * when `isGlobal: false` keeps its public injectables to the modules that import `VerdictModule` (as Nest's
 * `ConfigHostModule` does for `ConfigModule`; ADR 0179). No application can name these tokens.
 *
 * @internal Not exported from the package entry.
 */
@Module({})
export class VerdictCoreHostModule {
  /** The host of `core`, the dynamic module `VerdictModule.forRoot` or `forRootAsync` built. */
  static of(core: DynamicModule): DynamicModule {
    return {
      module: VerdictCoreHostModule,
      global: true,
      imports: [core],
      providers: CORE_EXPORTS.map((token) => ({ provide: hostTokenOf(token), useExisting: token })),
      exports: CORE_EXPORTS.map(hostTokenOf),
    };
  }
}

/**
 * The core's exports under their own tokens, for Verdict's integration modules (LangChain, AI SDK, OpenAI Agents,
 * MCP, the CLI and the audit): they import it, so they boot beside `VerdictModule.forRoot({ isGlobal: false })`
 * in the module that imports both, without the core's injectables reaching any other module. Aliases only: no
 * second instance, and lifecycle hooks run once, on the core's providers.
 *
 * @internal Not exported from the package entry.
 */
@Module({
  providers: CORE_EXPORTS.map((token) => ({ provide: token, useExisting: hostTokenOf(token) })),
  exports: CORE_EXPORTS,
})
export class VerdictCoreAccessModule {}
