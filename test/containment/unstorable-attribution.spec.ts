import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import {
  ContainmentService,
  InMemoryContainmentStore,
  InMemoryEvidenceRecorder,
  VerdictConfigurationError,
} from '@verdict/nestjs';
import { TypeOrmContainmentStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource } from '@verdict/testing-kit';
import { documentsFixture } from '../pipeline/documents.fixture.js';

const backends: Array<
  [string, () => Promise<{ store: () => InMemoryContainmentStore | TypeOrmContainmentStore; close(): Promise<void> }>]
> = [
  ['memory', async () => ({ store: () => new InMemoryContainmentStore(), close: async () => {} })],
  ...databaseEngines().map((engine): (typeof backends)[number] => [
    engine.name,
    async () => {
      const dataSource: DataSource = await openDataSource(engine, {
        entities: verdictEntities,
        migrations: verdictMigrations,
      });
      return { store: () => new TypeOrmContainmentStore(dataSource), close: () => dropDataSource(dataSource) };
    },
  ]),
];

/**
 * ADR 0186: a kill switch's `by`, operator identity and capability name are attributions every engine stores alike:
 * well-formed, without U+0000 (PostgreSQL refuses U+0000, which SQLite, MariaDB and memory keep).
 */
describe.each(backends)('kill switch attributions no engine stores alike [%s]', (_engine, open) => {
  let backend: Awaited<ReturnType<(typeof backends)[number][1]>>;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(async () => backend?.close());

  async function switches() {
    const evidence = new InMemoryEvidenceRecorder();
    const { moduleRef } = await documentsFixture().boot({
      evidence,
      containment: { store: backend.store(), cacheTtlMs: 0 },
    });
    return { containment: moduleRef.get(ContainmentService), evidence, close: () => moduleRef.close() };
  }

  it('attack: a `by` or operator identity holding U+0000 or a lone surrogate is refused; nothing engaged or recorded', async () => {
    const { containment, evidence, close } = await switches();
    const tenant = { scope: 'tenant', subject: 'acme-nul', reason: 'INC-9' } as const;
    await expect(containment.engage({ ...tenant, by: 'operator:7\u0000' })).rejects.toThrow(VerdictConfigurationError);
    await expect(containment.engage({ ...tenant, by: 'operator:7', operatorIdentity: 'sso:\ud800' })).rejects.toThrow(
      /without U\+0000 or a lone surrogate/,
    );
    await expect(
      containment.release({ scope: 'capability', subject: 'documents.read\u0000', reason: 'x', by: 'operator:7' }),
    ).rejects.toThrow(VerdictConfigurationError);
    const engaged = await containment.list();
    await close();
    expect({ engaged, recorded: evidence.decisions() }).toEqual({ engaged: [], recorded: [] });
  });

  it('control: an operator with an astral character engages and releases a switch', async () => {
    const { containment, close } = await switches();
    const tenant = { scope: 'tenant', subject: 'acme-ok', by: 'operator:😀' } as const;
    await containment.engage({ ...tenant, reason: 'INC-9' });
    const mine = async () => (await containment.list()).filter((engaged) => engaged.engagedBy === 'operator:😀');
    const engaged = await mine();
    await containment.release({ ...tenant, reason: 'INC-9 closed' });
    const after = await mine();
    await close();
    expect(engaged).toMatchObject([{ scope: 'tenant', engagedBy: 'operator:😀' }]);
    expect(after).toEqual([]);
  });
});
