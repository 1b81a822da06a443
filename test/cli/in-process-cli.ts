import { createMongoAbility } from '@casl/ability';
import { Module } from '@nestjs/common';
import { VerdictModule } from '@verdict/nestjs';
import { runVerdictCli, VerdictCliModule } from '@verdict/nestjs/cli';

/**
 * Runs `verdict <argv>` in this process on a module with `options` (and an ability that allows nothing); its exit
 * code and what it printed. Leaves `process.exitCode` unset.
 */
export async function inProcessCli(
  options: Omit<Parameters<typeof VerdictModule.forRoot>[0], 'abilityFactory'>,
  ...argv: string[]
) {
  const out: string[] = [];
  const err: string[] = [];
  @Module({
    imports: [
      VerdictModule.forRoot({ abilityFactory: { createForContext: () => createMongoAbility([]) }, ...options }),
      VerdictCliModule.forRoot({ streams: { out: (text) => out.push(text), err: (text) => err.push(text) } }),
    ],
  })
  class CliModule {}
  process.exitCode = undefined;
  await runVerdictCli(CliModule, { argv });
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}
