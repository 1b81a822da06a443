import { describe, expect, it } from '@jest/globals';
import {
  ActionContextStore,
  EvidenceLevel,
  InMemoryEvidenceRecorder,
  VerdictService,
  type ActionContext,
  type VerdictModuleOptions,
} from '@verdict/nestjs';
import { alice, bob, documentsFixture } from '../pipeline/documents.fixture.js';

async function setup(evidenceLevel?: VerdictModuleOptions['evidenceLevel']) {
  const evidence = new InMemoryEvidenceRecorder();
  const { moduleRef } = await documentsFixture().boot({ evidence, evidenceLevel });
  const read = (context: ActionContext, id: number) =>
    moduleRef
      .get(ActionContextStore)
      .run(context, () => moduleRef.get(VerdictService).execute({ capability: 'documents.read', arguments: { id } }));
  const stagesOf = (correlationId: string) =>
    evidence
      .decisions()
      .filter((record) => record.correlationId === correlationId)
      .map((record) => `${record.stage}:${record.disposition}`);
  return { read, stagesOf, evidence };
}

describe('evidence levels', () => {
  it('standard (the default) keeps one record per stage', async () => {
    const { read, stagesOf } = await setup();
    const run = await read(alice, 1);
    expect(stagesOf(run.correlationId)).toEqual(['proposal:permit', 'target_refresh:permit', 'execution:permit']);
  });

  it('minimal keeps the latest record of each write (here the one before the executor), with the run’s facts', async () => {
    const { read, stagesOf, evidence } = await setup(EvidenceLevel.Minimal);
    const run = await read(alice, 1);
    expect(run.executed).toBe(true);
    expect(stagesOf(run.correlationId)).toEqual(['execution:permit']);
    const final = evidence.decisions().find((record) => record.stage === 'execution')!;
    expect(final.argumentsFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(final.identityMatch).toBe(true);
  });

  it('minimal still records a refusal, with its stage and reason', async () => {
    const { read, stagesOf, evidence } = await setup(EvidenceLevel.Minimal);
    const run = await read(bob, 1);
    expect(run.executed).toBe(false);
    expect(stagesOf(run.correlationId)).toEqual(['proposal:deny']);
    expect(evidence.decisions()[0]!.reason).not.toBe('');
  });
});
