import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ContainmentService,
  InMemoryContainmentStore,
  InMemoryEvidenceRecorder,
  VerdictConfigurationError,
} from '@verdict/nestjs';
import { TypeOrmContainmentStore } from '@verdict/nestjs/typeorm';
import { storeBackends } from '@verdict/testing-kit';
import { documentsFixture } from '../pipeline/documents.fixture.js';

const backends = storeBackends<{ store: () => InMemoryContainmentStore | TypeOrmContainmentStore }>(
  () => ({ store: () => new InMemoryContainmentStore() }),
  (dataSource) => ({ store: () => new TypeOrmContainmentStore(dataSource) }),
);

/**
 * ADR 0186: a kill switch's `by`, operator identity and capability name are attributions every engine stores alike:
 * well-formed, without U+0000 (PostgreSQL refuses U+0000, which SQLite, MariaDB and memory keep).
 *
 * ADR 0194: its reason is an operator's text, kept and compared as written (ADR 0133: an identical repeat records the
 * engagement again). Holding U+0000 it failed on PostgreSQL alone with a raw `QueryFailedError`, the switch left off
 * and nothing recorded; holding a lone surrogate it was kept as U+FFFD by the database engines, so an identical repeat
 * was never the same and recorded nothing. Both are refused, alike on every engine.
 */
describe.each(backends)('kill switch attributions and reasons no engine stores alike [%s]', (_engine, open) => {
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
    const containment = moduleRef.get(ContainmentService);
    const mine = async (by: string) => (await containment.list()).filter((engaged) => engaged.engagedBy === by);
    return { containment, evidence, mine, close: () => moduleRef.close() };
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

  it('attack: a reason holding U+0000 or a lone surrogate is refused; nothing engaged, released or recorded', async () => {
    const { containment, evidence, mine, close } = await switches();
    const tenant = { scope: 'tenant', subject: 'acme-unstorable', by: 'operator:unstorable' } as const;
    const outcomes: unknown[] = [];
    for (const reason of ['INC-1\u0000x', 'INC-2 \ud800'])
      outcomes.push(await containment.engage({ ...tenant, reason }).catch((error: unknown) => error));
    await containment.engage({ ...tenant, reason: 'INC-3' });
    const released = await containment.release({ ...tenant, reason: 'INC-3\u0000' }).catch((error: unknown) => error);
    const engaged = await mine(tenant.by);
    await close();

    for (const outcome of [...outcomes, released]) {
      expect(outcome).toBeInstanceOf(VerdictConfigurationError);
      expect((outcome as Error).message).toMatch(/reason of a containment .* without U\+0000 or a lone surrogate/);
    }
    expect(engaged.map((switched) => switched.reason)).toEqual(['INC-3']);
    expect(evidence.decisions()).toHaveLength(1);
  });

  it('control: a reason with an astral character is kept whole, and an identical repeat records it again', async () => {
    const { containment, evidence, mine, close } = await switches();
    const command = { scope: 'tenant', subject: 'acme-astral', by: 'operator:astral', reason: 'INC-4 😀' } as const;
    const first = await containment.engage(command);
    const repeat = await containment.engage(command);
    const engaged = await mine(command.by);
    await close();

    expect([first.engaged, repeat.engaged]).toEqual([true, false]);
    expect(engaged.map((switched) => switched.reason)).toEqual(['INC-4 😀']);
    expect(evidence.decisions()).toHaveLength(2);
  });
});
