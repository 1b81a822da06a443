import { describe, expect, it } from '@jest/globals';
import { createMongoAbility } from '@casl/ability';
import { type DynamicModule, Module } from '@nestjs/common';
import { VerdictModule } from '@verdict/nestjs';
import { runVerdictCli, VerdictCliModule } from '@verdict/nestjs/cli';
import { FailingInit, RefusedWiring } from '../../libs/testing/src/fixtures/unbootable-app.module.js';
import { capturedCli } from './captured-cli.js';

/** `module`'s `verdict` CLI run in this process, outside a test environment (NODE_ENV production while it runs). */
const run = (module: DynamicModule, ...argv: string[]) =>
  capturedCli(
    () => {
      @Module({ imports: [module, VerdictCliModule] })
      class CliModule {}
      return runVerdictCli(CliModule, { argv });
    },
    { env: { ...process.env, NODE_ENV: 'production' } },
  );

/**
 * An application that starts, and counts how often it did: its Verdict options come from a factory, as ones read from
 * a database or a secret store do.
 */
function countedBoots() {
  const boots = { count: 0 };
  @Module({})
  class CountedModule {}
  const module: DynamicModule = {
    module: CountedModule,
    imports: [
      VerdictModule.forRootAsync({
        useFactory: () => {
          boots.count += 1;
          return { abilityFactory: { createForContext: () => createMongoAbility([]) } };
        },
      }),
    ],
  };
  return { boots, module };
}

const VALID = '--fail-on must be one of low, medium, high, critical.';
/** What commander wrote on stderr: the usage error, then the hint to run `--help`. */
const usageError = (value: string) =>
  `error: option '--fail-on <severity>' argument '${value}' is invalid. ${VALID}\n(run verdict --help for usage)\n`;

describe('verdict validate --fail-on <severity> (a usage error before anything boots)', () => {
  it.each([
    ['an unknown severity', 'severe'],
    ['a severity in capitals', 'HIGH'],
    ['an empty value', ''],
  ])('attack: %s exits 2 naming the severities, and the application never starts', async (_what, value) => {
    const { boots, module } = countedBoots();
    const result = await run(module, 'validate', '--fail-on', value);
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr, boots: boots.count }).toEqual({
      code: 2,
      stdout: '',
      stderr: usageError(value),
      boots: 0,
    });
  });

  it('attack: exits 2 with --json too, and never starts the application', async () => {
    const { boots, module } = countedBoots();
    const result = await run(module, 'validate', '--json', '--fail-on', 'severe');
    expect({ code: result.code, stdout: result.stdout, boots: boots.count }).toEqual({ code: 2, stdout: '', boots: 0 });
    expect(result.stderr).toContain(VALID);
  });

  it.each([
    ['cannot start (a provider hook throws)', FailingInit],
    ['is refused by Verdict at boot', RefusedWiring],
  ])('attack: exits 2, not 3 or 1, for an application that %s', async (_what, module) => {
    const result = await run(module, 'validate', '--fail-on', 'severe');
    expect(result).toEqual({ code: 2, stdout: '', stderr: usageError('severe') });
  });

  it.each(['low', 'medium', 'high', 'critical'])(
    'utility: --fail-on %s starts the application once and audits it',
    async (severity) => {
      const { boots, module } = countedBoots();
      const result = await run(module, 'validate', '--json', '--fail-on', severity);
      const report = JSON.parse(result.stdout);
      expect({ boots: boots.count, code: result.code, failOn: report.failOn }).toEqual({
        boots: 1,
        code: report.failed ? 1 : 0,
        failOn: severity,
      });
    },
  );

  it('utility: without --fail-on every finding fails the check (low)', async () => {
    const { boots, module } = countedBoots();
    const result = await run(module, 'validate', '--json');
    expect({ boots: boots.count, failOn: JSON.parse(result.stdout).failOn }).toEqual({ boots: 1, failOn: 'low' });
  });

  it('utility: an application Verdict refuses at boot still exits 1 with a known severity', async () => {
    const result = await run(RefusedWiring, 'validate', '--fail-on', 'critical');
    expect({ code: result.code, last: result.stderr.trimEnd().split('\n').at(-1) }).toEqual({
      code: 1,
      last: expect.stringMatching(/^error: Verdict refused the wiring at boot: /),
    });
  });
});
