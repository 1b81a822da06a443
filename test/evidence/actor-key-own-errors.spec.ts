import { afterEach, describe, expect, it } from '@jest/globals';
import { inspect } from 'node:util';
import { ConsoleLogger, Logger, type LoggerService } from '@nestjs/common';
import {
  type ActionContext,
  ActionContextStore,
  type ActorKey,
  type InMemoryEvidenceRecorder,
  NonCanonicalValueError,
  VerdictConfigurationError,
  VerdictService,
} from '@verdict/nestjs';
import { documentsFixture } from '../pipeline/documents.fixture.js';

const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme' };

/** The module booted with `actorKey`: a read by `alice`, what ran, the records' actors and what was logged. */
async function setup(actorKey: ActorKey) {
  const fixture = documentsFixture();
  const { moduleRef, evidence } = await fixture.boot({ actorKey });
  const logged: string[] = [];
  const capture = (...args: unknown[]) => void logged.push(inspect(args, { depth: 10 }));
  const logger: LoggerService = { log: capture, error: capture, warn: capture, debug: capture, verbose: capture };
  Logger.overrideLogger(logger);
  const read = () =>
    moduleRef
      .get(ActionContextStore)
      .run(alice, () => moduleRef.get(VerdictService).execute({ capability: 'documents.read', arguments: { id: 1 } }));
  const actors = () => (evidence as InMemoryEvidenceRecorder).decisions().map((record) => record.actorFingerprint);
  return { read, executions: fixture.executions, actors, logged };
}

afterEach(() => Logger.overrideLogger(new ConsoleLogger()));

/**
 * Decision records take an actor whose key names nobody or is not plain JSON as unattributed (`actorFingerprint:
 * null`). That is Verdict's own check of the key's answer; what the key function throws itself is an application
 * fault, a Verdict error class included: who threw decides, not what was thrown (ADR 0204, ADR 0208).
 */
describe("decision records and the actorKey's own errors", () => {
  it.each([
    ['VerdictConfigurationError', new VerdictConfigurationError('directory: no customer for this session')],
    ['NonCanonicalValueError', new NonCanonicalValueError('$.session', 'the session expired')],
  ])('attack: a key function that throws a %s itself fails the call with it; nothing runs', async (_, thrown) => {
    const { read, executions, actors, logged } = await setup(() => {
      throw thrown;
    });
    await expect(read()).rejects.toBe(thrown);
    expect(executions).toEqual([]);
    expect(actors()).not.toContain(null);
    expect(logged.filter((line) => line.includes('actorFingerprint: null'))).toEqual([]);
  });

  it('control: a key that gives a blank string is an actor without a key: unattributed, warned once, and it runs', async () => {
    const { read, executions, actors, logged } = await setup(() => ' ');
    expect(await read()).toMatchObject({ executed: true });
    expect(executions).toHaveLength(1);
    expect(new Set(actors())).toEqual(new Set([null]));
    expect(logged.filter((line) => line.includes('actorFingerprint: null'))).toHaveLength(1);
  });

  it("control: a key that answers attributes the records to the actor's key", async () => {
    const { read, actors, logged } = await setup((actor: { id: string }) => `customer:${actor.id}`);
    expect(await read()).toMatchObject({ executed: true });
    expect(actors().length).toBeGreaterThan(0);
    expect(actors()).not.toContain(null);
    expect(logged).toEqual([]);
  });
});
