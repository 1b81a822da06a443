import { Module } from '@nestjs/common';
import { VerdictAiSdkTools } from './verdict-ai-sdk-tools.js';

/**
 * Provides {@link VerdictAiSdkTools}. Import it next to `VerdictModule.forRoot(...)`.
 *
 * @example
 * \@Module({ imports: [VerdictModule.forRoot(options), VerdictAiSdkModule] })
 */
@Module({ providers: [VerdictAiSdkTools], exports: [VerdictAiSdkTools] })
export class VerdictAiSdkModule {}
