import { Module } from '@nestjs/common';
import { VerdictTools } from './verdict-tools.js';

/**
 * Provides {@link VerdictTools}. Import it next to `VerdictModule.forRoot(...)`.
 *
 * @example
 * \@Module({ imports: [VerdictModule.forRoot(options), VerdictLangChainModule] })
 */
@Module({ providers: [VerdictTools], exports: [VerdictTools] })
export class VerdictLangChainModule {}
