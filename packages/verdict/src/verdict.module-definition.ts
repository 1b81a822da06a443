import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { VerdictModuleOptions } from './verdict-module-options.interface.js';

/**
 * `MODULE_OPTIONS_TOKEN` (exported as `VERDICT_MODULE_OPTIONS`) injects the resolved {@link VerdictModuleOptions}.
 */
export const {
  ConfigurableModuleClass: ConfigurableVerdictModule,
  MODULE_OPTIONS_TOKEN,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<VerdictModuleOptions>()
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();
