import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { VerdictAgents } from './verdict-agents.js';
import { WiringAudit } from './wiring-audit.js';
import { VerdictCoreAccessModule } from '../verdict-core-access.module.js';

/**
 * Provides {@link WiringAudit} and {@link VerdictAgents} (global, one instance). `VerdictCliModule`
 * imports it for `verdict validate`; import it in your application module too when you register agents.
 *
 * @example
 * \@Module({ imports: [VerdictModule.forRoot(options), VerdictLangChainModule, VerdictAuditModule] })
 */
@Global()
@Module({
  imports: [DiscoveryModule, VerdictCoreAccessModule],
  providers: [WiringAudit, VerdictAgents],
  exports: [WiringAudit, VerdictAgents],
})
export class VerdictAuditModule {}
