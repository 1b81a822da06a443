import { afterEach, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readNotExecutedMessage } from '@verdict/nestjs';
import { verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { dropDataSource, openDataSource, runNodeScript, testingKitFixture } from '@verdict/testing-kit';

/** The compiled step script; refuses a build older than the sources (StaleBuildError). */
const script = testingKitFixture('agents-resume.js');

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A SQLite file with Verdict's schema, shared by the processes of one test. */
async function setup() {
  const dataSource = await openDataSource(
    { name: 'sqlite' },
    { entities: verdictEntities, migrations: verdictMigrations },
  );
  cleanups.push(() => dropDataSource(dataSource));
  const database = dataSource.options.database as string;
  /** Runs one step of the run in a new node process; resolves with the JSON it printed. */
  const step = async (...args: string[]): Promise<any> => {
    const { code, stdout, stderr } = await runNodeScript(script, [database, ...args]);
    if (code !== 0) throw new Error(`${args[0]} failed: ${stderr}`);
    return JSON.parse(stdout.trim().split('\n').at(-1)!);
  };
  const executions = () =>
    existsSync(`${database}.executed`) ? readFileSync(`${database}.executed`, 'utf8').split('\n').filter(Boolean) : [];
  /**
   * Alice's run interrupts in one process, where a human approves the call's receipt in Verdict; the serialized
   * state is stored in a file, as an application would store it, for other processes to resume.
   */
  const pauseAndApprove = async () => {
    const paused = await step('pause', 'alice', 'approve');
    expect(paused).toMatchObject({ interruptions: 1, outcome: 'approved' });
    const stateFile = `${database}.state.json`;
    writeFileSync(stateFile, paused.state);
    return { stateFile, state: paused.state as string };
  };
  return { database, step, executions, pauseAndApprove };
}

const decisionOf = (outputs: unknown[]) => readNotExecutedMessage(String(outputs[0]))?.decision;

// Each step boots the application in a new node process (several seconds each on a loaded machine).
const PROCESSES = 180_000;

describe('an OpenAI Agents run interrupted for approval, resumed in another OS process', () => {
  it(
    'control: paused and approved in one process, resumed in a second, the call runs once; attack: resumed again in a third, refused',
    async () => {
      const env = await setup();
      const { stateFile } = await env.pauseAndApprove();
      expect(env.executions()).toHaveLength(0);
      expect(await env.step('resume', 'alice', stateFile)).toEqual({ outputs: ['archived 1'] });
      expect(env.executions()).toEqual(['1']);
      const replayed = await env.step('resume', 'alice', stateFile);
      expect(decisionOf(replayed.outputs)).toBe('deny');
      expect(env.executions()).toEqual(['1']);
    },
    PROCESSES,
  );

  it(
    'attack: a state resumed in two processes at once executes once',
    async () => {
      const env = await setup();
      const { stateFile } = await env.pauseAndApprove();
      const both = await Promise.all([env.step('resume', 'alice', stateFile), env.step('resume', 'alice', stateFile)]);
      expect(both.flatMap((answer) => answer.outputs).filter((output) => output === 'archived 1')).toHaveLength(1);
      expect(env.executions()).toEqual(['1']);
    },
    PROCESSES,
  );

  it(
    'attack: arguments changed in the stored state are refused in the resuming process',
    async () => {
      const env = await setup();
      const { stateFile, state } = await env.pauseAndApprove();
      const original = JSON.stringify(JSON.stringify({ id: 1 })).slice(1, -1);
      const edited = JSON.stringify(JSON.stringify({ id: 1, note: 'and the rest' })).slice(1, -1);
      const changed = state.split(original).join(edited);
      expect(changed).not.toBe(state);
      writeFileSync(stateFile, changed);
      const resumed = await env.step('resume', 'alice', stateFile);
      expect(decisionOf(resumed.outputs)).toBe('require_confirmation');
      expect(env.executions()).toHaveLength(0);
    },
    PROCESSES,
  );

  it(
    'attack: another actor resuming the approved state in another process never runs it',
    async () => {
      const env = await setup();
      const { stateFile } = await env.pauseAndApprove();
      const resumed = await env.step('resume', 'mallory', stateFile);
      expect(decisionOf(resumed.outputs)).not.toBeUndefined();
      expect(env.executions()).toHaveLength(0);
    },
    PROCESSES,
  );
});
