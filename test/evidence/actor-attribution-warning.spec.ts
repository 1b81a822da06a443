import { afterEach, describe, expect, it } from '@jest/globals';
import { inspect } from 'node:util';
import { ConsoleLogger, Logger, type LoggerService } from '@nestjs/common';
import { ActionContextStore, type InMemoryEvidenceRecorder, VerdictService, type ActionContext } from '@verdict/nestjs';
import { documentsFixture } from '../pipeline/documents.fixture.js';

/** A key of the actor object that is data: an e-mail address, which no log may keep. */
const DATA_KEY = 'alice.private@example.com';

/**
 * The module booted with `options`, and every line the `Verdict` logger writes. The capturing logger is installed
 * after `compile()`, which replaces a logger overridden before it.
 */
async function setup(options: Parameters<ReturnType<typeof documentsFixture>['boot']>[0] = {}) {
  const { moduleRef, evidence } = await documentsFixture().boot(options);
  const logged: string[] = [];
  const capture = (...args: unknown[]) => void logged.push(inspect(args, { depth: 10 }));
  const logger: LoggerService = { log: capture, error: capture, warn: capture, debug: capture, verbose: capture };
  Logger.overrideLogger(logger);
  const read = (context: ActionContext) =>
    moduleRef
      .get(ActionContextStore)
      .run(context, () =>
        moduleRef.get(VerdictService).execute({ capability: 'documents.read', arguments: { id: 1 } }),
      );
  const actors = () => new Set((evidence as InMemoryEvidenceRecorder).decisions().map((r) => r.actorFingerprint));
  return { read, logged, actors };
}

afterEach(() => Logger.overrideLogger(new ConsoleLogger()));

describe('the warning that records are not attributed to their actor', () => {
  it("attack: an actor not plain JSON is named by its problem and a masked path, never by the actor's own keys", async () => {
    const { read, logged, actors } = await setup();
    const result = await read({ actor: { id: 'alice', [DATA_KEY]: NaN }, tenant: 'acme' });
    expect(result.executed).toBe(true);
    expect(actors()).toEqual(new Set([null]));

    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('actorFingerprint: null');
    expect(logged[0]).toContain('$.*: NaN is not a finite number');
    expect(logged[0]).not.toContain(DATA_KEY);
    expect(logged[0]).not.toContain('alice.private');
  });

  it('attack: a nested key is masked at every level, array positions kept', async () => {
    const { read, logged } = await setup();
    await read({ actor: { id: 'alice', devices: { [DATA_KEY]: [1, Infinity] } }, tenant: 'acme' });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('$.*.*.1: Infinity is not a finite number');
    expect(logged[0]).not.toContain(DATA_KEY);
    expect(logged[0]).not.toContain('devices');
  });

  it('control: a key naming nobody is still named as such; a keyed actor is attributed, with no warning', async () => {
    const blank = await setup({ actorKey: () => ' ' });
    await blank.read({ actor: { id: 'alice' }, tenant: 'acme' });
    expect(blank.logged).toHaveLength(1);
    expect(blank.logged[0]).toContain('The actorKey gave a blank string');

    const keyed = await setup({ actorKey: (actor: { id: string }) => actor.id });
    expect((await keyed.read({ actor: { id: 'alice', [DATA_KEY]: NaN }, tenant: 'acme' })).executed).toBe(true);
    expect(keyed.actors()).not.toContain(null);
    expect(keyed.logged).toEqual([]);
  });
});
