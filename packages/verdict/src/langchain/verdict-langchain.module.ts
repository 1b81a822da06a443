import { Module } from '@nestjs/common';
import { ModelInputGuards } from './model-input-guards.js';
import { VerdictTools } from './verdict-tools.js';

/**
 * Provides {@link VerdictTools} and {@link ModelInputGuards}. Import it next to `VerdictModule.forRoot(...)`.
 *
 * @example
 * \@Module({ imports: [VerdictModule.forRoot(options), VerdictLangChainModule] })
 */
@Module({ providers: [VerdictTools, ModelInputGuards], exports: [VerdictTools, ModelInputGuards] })
export class VerdictLangChainModule {}
