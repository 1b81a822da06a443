import { describe, expect, it } from '@jest/globals';
import {
  ActionContextStore,
  InMemoryEvidenceRecorder,
  VerdictConfigurationError,
  VerdictService,
  type Proposal,
} from '@verdict/nestjs';
import { VerdictPipeline } from '../../packages/verdict/src/pipeline/verdict-pipeline.js';
import { alice, documentsFixture } from './documents.fixture.js';

// A proposal is built by the application (or a runtime, from a declared binding): one that is not an object with a
// string capability is an application fault, a typed error thrown before the run reads or records anything
// (docs/architecture.md, step 1). What the model writes inside a well-formed proposal stays a recorded deny.

async function setup() {
  const fixture = documentsFixture();
  const { moduleRef, evidence } = await fixture.boot();
  const contexts = moduleRef.get(ActionContextStore);
  return {
    ...fixture,
    verdict: moduleRef.get(VerdictService),
    pipeline: moduleRef.get(VerdictPipeline),
    as: <T>(fn: () => Promise<T>) => contexts.run(alice, fn),
    records: () => (evidence as InMemoryEvidenceRecorder).decisions(),
  };
}

const malformed: ReadonlyArray<readonly [string, unknown, RegExp]> = [
  ['null', null, /got null\./],
  ['undefined', undefined, /got undefined\./],
  ['a string', 'documents.read SECRET-7', /got a string\./],
  ['a numeric capability', { capability: 42, arguments: { id: 1 } }, /capability is a number/],
  ['a null capability', { capability: null, arguments: { id: 1 } }, /capability is null/],
  ['no capability', { arguments: { id: 1 } }, /without a capability/],
  ['an array', ['documents.read'], /got an array\./],
];

describe('a proposal that is not an object with a string capability', () => {
  it.each(malformed)('is refused with VerdictConfigurationError by every entry point: %s', async (_, proposal, got) => {
    const { verdict, pipeline, as, records, executions, hooks } = await setup();
    let resolved = false;
    hooks.onResolve = () => void (resolved = true);
    let handled = false;
    const entries: Array<[string, () => Promise<unknown>]> = [
      ['execute', () => verdict.execute(proposal as Proposal)],
      ['execute with an approval', () => verdict.execute(proposal as Proposal, { explicitApproval: true })],
      ['execute with a blank batch', () => verdict.execute(proposal as Proposal, { approvalBatch: ' ' })],
      ['evaluate', () => verdict.evaluate(proposal as Proposal)],
      ['enqueue', () => verdict.enqueue(proposal as Proposal)],
      ['ask', () => pipeline.ask(proposal as Proposal)],
      ['guard', () => pipeline.guard(proposal as Proposal, async () => void (handled = true))],
      ['provenanceConfirms', () => pipeline.provenanceConfirms(proposal as Proposal)],
    ];

    for (const [entry, call] of entries) {
      const error = await as(call).then(
        (answer) => ({ entry, answer }),
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(VerdictConfigurationError);
      expect((error as Error).message).toMatch(got);
      expect((error as Error).message).not.toContain('SECRET-7');
    }

    expect(records()).toEqual([]);
    expect(executions).toHaveLength(0);
    expect(resolved).toBe(false);
    expect(handled).toBe(false);
  });

  it('is refused before the action context is read', async () => {
    const { verdict, records } = await setup();
    // Outside any context a well-formed proposal throws MissingActionContextError; a malformed one is named first.
    await expect(verdict.execute(null as unknown as Proposal)).rejects.toThrow(VerdictConfigurationError);
    expect(records()).toEqual([]);
  });
});

describe('a well-formed proposal (control)', () => {
  it('still executes', async () => {
    const { verdict, as, records, executions } = await setup();
    const result = await as(() => verdict.execute({ capability: 'documents.read', arguments: { id: 1 } }));
    expect(result).toMatchObject({ executed: true, output: { id: 1, title: 'alice plan' } });
    expect(executions).toHaveLength(1);
    expect(records().map((record) => `${record.stage}:${record.disposition}`)).toEqual([
      'proposal:permit',
      'target_refresh:permit',
      'execution:permit',
    ]);
  });

  it('with an unknown or blank capability name is still a recorded deny at proposal', async () => {
    const { verdict, as, records, executions } = await setup();
    for (const capability of ['documents.delete_all', '']) {
      const result = await as(() => verdict.execute({ capability, arguments: {} }));
      expect(result).toMatchObject({
        executed: false,
        decision: { disposition: 'deny', stage: 'proposal', reason: 'unknown capability' },
      });
    }
    expect(records().map((record) => `${record.stage}:${record.disposition}`)).toEqual([
      'proposal:deny',
      'proposal:deny',
    ]);
    expect(executions).toHaveLength(0);
  });
});
