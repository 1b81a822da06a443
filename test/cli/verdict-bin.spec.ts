import { afterEach, describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { binArguments, runVerdictBin } from '@verdict/nestjs/cli';
import { compiledScript, runNodeScript } from '@verdict/testing-kit';
import { written } from './fixtures/bin-app.module.js';

const MODULE = fileURLToPath(new URL('./fixtures/bin-app.module.ts', import.meta.url));

/** Runs the bin in this process; answers its exit code and what it wrote as usage errors. */
async function bin(argv: string[]) {
  const err: string[] = [];
  process.exitCode = undefined;
  await runVerdictBin(argv, { env: {}, streams: { out: () => undefined, err: (text) => void err.push(text) } });
  const code = process.exitCode ?? 0;
  process.exitCode = undefined;
  return { code, err: err.join('\n') };
}

afterEach(() => {
  written.out.length = 0;
  written.err.length = 0;
});

describe('the verdict bin', () => {
  it("runs a command against the application's module, with the CLI hooks that module configured", async () => {
    expect(await bin(['--module', MODULE, 'evidence', 'verify', '--json'])).toEqual({ code: 0, err: '' });
    expect(JSON.parse(written.out.join('\n'))).toEqual({ intact: true, streams: [] });
  });

  it('takes --module=<file> and --export <name>, before the command', async () => {
    expect(await bin([`--module=${MODULE}`, '--export', 'default', 'evidence', 'verify', '--json'])).toMatchObject({
      code: 0,
    });
    expect(binArguments(['--export=AppModule', '--module', 'm.js', 'claims', 'list'], {})).toEqual({
      module: 'm.js',
      exportName: 'AppModule',
      rest: ['claims', 'list'],
    });
    expect(binArguments(['claims', 'list'], { VERDICT_CLI_MODULE: 'dist/cli.js' }).module).toBe('dist/cli.js');
  });

  it('refuses a command without a module, a file it cannot import and an export that is no module (exit 2), running nothing', async () => {
    expect(await bin(['evidence', 'verify'])).toEqual({ code: 2, err: expect.stringMatching(/pass --module <file>/) });
    expect(await bin(['--module', '/nonexistent/cli.module.js', 'evidence', 'verify'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/cannot import --module/),
    });
    expect(await bin(['--module', MODULE, '--export', 'written', 'evidence', 'verify'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/export "written" is not a Nest module/),
    });
    expect(written.out).toEqual([]);
  });

  it('takes a named export of an ES module whose default export is marked `__esModule`', async () => {
    const marked = fileURLToPath(new URL('./fixtures/marked-default.module.ts', import.meta.url));
    expect(await bin(['--module', marked, '--export', 'AppModule', 'evidence', 'verify', '--json'])).toEqual({
      code: 0,
      err: '',
    });
  });

  describe('in its own process, as an application runs it', () => {
    /** The compiled bin (refused when older than the sources: StaleBuildError) on `argv`. */
    const ownProcess = (...argv: string[]) => {
      compiledScript(new URL('../../packages/verdict/dist/cli/verdict-bin.js', import.meta.url));
      return runNodeScript(fileURLToPath(new URL('../../packages/verdict/bin/verdict.js', import.meta.url)), argv);
    };
    const COMMONJS = fileURLToPath(new URL('./fixtures/commonjs-app.module.cjs', import.meta.url));

    it('takes a module compiled to CommonJS: its default export, not its whole module.exports', async () => {
      const run = await ownProcess('--module', COMMONJS, 'evidence', 'verify', '--json');
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(run.stdout)).toEqual({ intact: true, streams: [] });
      // Its named export too (a control: --export named what the file exports).
      expect((await ownProcess('--module', COMMONJS, '--export', 'default', 'evidence', 'verify')).code).toBe(0);
    });

    it('names its own options, --module and --export, in its help', async () => {
      const help = await ownProcess('--help');
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/--module <file>[\s\S]*--export <name>/);
    });
  });
});
