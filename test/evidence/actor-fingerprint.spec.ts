import { describe, expect, it } from '@jest/globals';
import {
  ActionContextStore,
  EvidenceQuery,
  InMemoryEvidenceRecorder,
  NonCanonicalValueError,
  NullEvidenceRecorder,
  VerdictConfigurationError,
  VerdictService,
  actorFingerprint,
  fingerprintString,
  type ActionContext,
} from '@verdict/nestjs';
import { alice, bob, documentsFixture } from '../pipeline/documents.fixture.js';

/** An actor as many applications hold one: a class instance with a Date, which is not plain JSON. */
class Account {
  constructor(
    readonly id: string,
    readonly signedInAt: Date,
  ) {}
}

async function setup(options: Parameters<ReturnType<typeof documentsFixture>['boot']>[0] = {}) {
  const fixture = documentsFixture();
  const { moduleRef, evidence } = await fixture.boot(options);
  const read = (context: ActionContext, id: number) =>
    moduleRef
      .get(ActionContextStore)
      .run(context, () => moduleRef.get(VerdictService).execute({ capability: 'documents.read', arguments: { id } }));
  return { ...fixture, moduleRef, read, records: () => (evidence as InMemoryEvidenceRecorder).decisions() };
}

describe('actorFingerprint on decision records', () => {
  it("marks every record of a proposal with its actor's fingerprint, never the actor", async () => {
    const { read, records } = await setup();
    const runs = [await read(alice, 1), await read(bob, 1)];

    const actorsOf = (correlationId: string) =>
      new Set(records().flatMap((record) => (record.correlationId === correlationId ? [record.actorFingerprint] : [])));
    expect(runs.map((run) => actorsOf(run.correlationId))).toEqual([
      new Set([fingerprintString('{"id":"alice"}')]),
      new Set([fingerprintString('{"id":"bob"}')]),
    ]);
    expect(actorFingerprint(alice)).toBe(fingerprintString('{"id":"alice"}'));
    expect(JSON.stringify(records())).not.toMatch(/"(alice|bob)"/);
  });

  it("names the actor by the module's actorKey, so the same person keeps one fingerprint across sessions", async () => {
    const { read, records } = await setup({ actorKey: (actor: Account) => actor.id });
    await read({ actor: new Account('alice', new Date('2031-01-01T08:00:00Z')), tenant: 'acme' }, 1);
    await read({ actor: new Account('alice', new Date('2031-01-02T09:30:00Z')), tenant: 'acme' }, 1);

    const expected = actorFingerprint({ actor: 'alice', tenant: 'acme' });
    expect(new Set(records().map((record) => record.actorFingerprint))).toEqual(new Set([expected]));
    expect(records().filter((record) => record.stage === 'execution')).toHaveLength(2);
  });

  it("records a proposal whose actor cannot be fingerprinted as unattributed, and the actor's ability still decides", async () => {
    const { read, records, executions } = await setup();
    const session = { actor: new Account('alice', new Date('2031-01-01T08:00:00Z')), tenant: 'acme' };

    expect(await read(session, 1)).toMatchObject({ executed: true });
    expect(await read({ actor: new Account('bob', new Date()), tenant: 'acme' }, 1)).toMatchObject({ executed: false });
    expect(executions.map((action) => action.target.id)).toEqual([1]);
    expect(new Set(records().map((record) => record.actorFingerprint))).toEqual(new Set([null]));
  });

  it('keeps the helper strict: a key naming nobody or a non-JSON actor is an error, never a fingerprint', () => {
    const session = { actor: new Account('alice', new Date('2031-01-01T08:00:00Z')), tenant: 'acme' };
    expect(() => actorFingerprint(session)).toThrow(NonCanonicalValueError);
    expect(() => actorFingerprint(session)).toThrow(/Account instance is not a plain object/);
    expect(() => actorFingerprint({ actor: '', tenant: 'acme' })).toThrow(VerdictConfigurationError);
    expect(() => actorFingerprint(session, (actor: Account) => actor.id)).not.toThrow();
  });
});

describe('EvidenceQuery in the module', () => {
  it('reads an InMemoryEvidenceRecorder back by default, filtered by actor', async () => {
    const { moduleRef, read } = await setup();
    const own = await read(alice, 1);
    await read(bob, 2);

    const query = moduleRef.get<EvidenceQuery>(EvidenceQuery);
    const listed = await query.list({ actorFingerprint: actorFingerprint(alice) });
    expect(new Set(listed.map((record) => record.correlationId))).toEqual(new Set([own.correlationId]));
    expect((await query.run(own.correlationId)).map((record) => record.stage)).toEqual([
      'proposal',
      'target_refresh',
      'execution',
    ]);
  });

  it('says how to configure one when the recorder cannot be read back', async () => {
    const { moduleRef } = await setup({ evidence: new NullEvidenceRecorder() });
    await expect(moduleRef.get<EvidenceQuery>(EvidenceQuery).list()).rejects.toThrow(
      /evidenceQuery: new TypeOrmEvidenceQuery/,
    );
  });
});
