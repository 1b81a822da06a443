import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { assertCurrentBuild } from '@verdict/testing-kit';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A resolve hook that refuses every LangChain package, as an install without them would. */
const WITHOUT_LANGCHAIN = `export async function resolve(specifier, context, next) {
  if (specifier === 'langchain' || specifier.startsWith('@langchain/')) throw new Error('not installed: ' + specifier);
  return next(specifier, context);
}`;
const dataUrl = (source: string) => `data:text/javascript,${encodeURIComponent(source)}`;
const REGISTER = dataUrl(
  `import { register } from 'node:module'; register(${JSON.stringify(dataUrl(WITHOUT_LANGCHAIN))});`,
);

/** Imports `entry` of the built package in a Node process where no LangChain package resolves: its export names. */
async function exportsWithoutLangChain(entry: string): Promise<string[]> {
  const { JEST_WORKER_ID: _worker, ...env } = process.env;
  const script = `const entry = await import(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(entry)));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', REGISTER, '--input-type=module', '-e', script],
    { cwd: ROOT, env, timeout: 60_000 },
  );
  return JSON.parse(stdout) as string[];
}

describe('@verdict/nestjs/testing without LangChain installed', () => {
  it('loads the contract suites and the testing module; the scripted chat model is in /testing/langchain', async () => {
    assertCurrentBuild(new URL('../../packages/verdict/dist/testing/index.js', import.meta.url));
    const names = await exportsWithoutLangChain('@verdict/nestjs/testing');
    expect(names).toEqual(
      expect.arrayContaining(['createVerdictTestingModule', 'describeExecutionClaimStoreContract']),
    );
    expect(names).not.toContain('ScriptedChatModel');
  });

  it('refuses /testing/langchain there: it is the entry that needs @langchain/core', async () => {
    await expect(exportsWithoutLangChain('@verdict/nestjs/testing/langchain')).rejects.toThrow(
      /not installed: @langchain\/core/,
    );
  });
});
