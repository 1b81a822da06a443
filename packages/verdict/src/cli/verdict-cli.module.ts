import { Module } from '@nestjs/common';
import { ClaimsListCommand } from './claims-list.command.js';
import { ClaimsResolveCommand } from './claims-resolve.command.js';
import { ClaimsCommand } from './claims.command.js';
import { RateLimitsPruneCommand } from './rate-limits-prune.command.js';
import { RateLimitsCommand } from './rate-limits.command.js';

/**
 * The operator CLI (nest-commander). Import it next to your `VerdictModule.forRoot(...)` in a CLI entry
 * point and run it with `CommandFactory.run`.
 *
 * @example
 * // cli.ts
 * \@Module({ imports: [AppModule, VerdictCliModule] }) class CliModule {}
 * await CommandFactory.run(CliModule, { logger: ['error'] });
 * // node dist/cli.js claims list --json
 */
@Module({ providers: [ClaimsCommand, ClaimsListCommand, ClaimsResolveCommand, RateLimitsCommand, RateLimitsPruneCommand] })
export class VerdictCliModule {}
