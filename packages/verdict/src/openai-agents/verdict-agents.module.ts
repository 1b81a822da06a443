import { Module } from '@nestjs/common';
import { VerdictAgentsTools } from './verdict-agents-tools.js';

/**
 * Provides {@link VerdictAgentsTools}. Import it next to `VerdictModule.forRoot(...)`.
 *
 * @example
 * \@Module({ imports: [VerdictModule.forRoot(options), VerdictAgentsModule] })
 */
@Module({ providers: [VerdictAgentsTools], exports: [VerdictAgentsTools] })
export class VerdictAgentsModule {}
