import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type ExecutionClaimStore,
  ExecutionClaimsService,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  VerdictConfigurationError,
} from '@verdict/nestjs';
import { TypeOrmExecutionClaimStore } from '@verdict/nestjs/typeorm';
import { storeBackends } from '@verdict/testing-kit';

const NOW = new Date('2026-01-01T10:00:00.000Z');

const backends = storeBackends<{ store: ExecutionClaimStore }>(
  () => ({ store: new InMemoryExecutionClaimStore() }),
  (dataSource) => ({ store: new TypeOrmExecutionClaimStore(dataSource) }),
);

/**
 * ADR 0186: what an operator types into `verdict claims resolve` or an admin screen — the claim id, `--by`, the
 * operator identity — is text every engine stores and finds: well-formed, without U+0000. PostgreSQL refuses U+0000
 * where SQLite, MariaDB and memory keep it: a claim id holding one failed the lookup with a raw `QueryFailedError`,
 * and a `--by` holding one failed the resolution after its evidence was recorded.
 */
describe.each(backends)('claim resolution ids no engine stores alike [%s]', (_engine, open) => {
  let backend: Awaited<ReturnType<(typeof backends)[number][1]>>;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(async () => backend?.close());

  /** An indeterminate claim on the engine's store, and the service an operator resolves it with. */
  async function indeterminate(id: string) {
    const evidence = new InMemoryEvidenceRecorder();
    const claims = new ExecutionClaimsService({ executionClaims: backend.store, clock: () => NOW } as never, evidence);
    const binding = id.padEnd(64, 'b').slice(0, 64);
    await backend.store.admit({
      capability: 'refunds',
      policy: 'p',
      bindingFingerprint: binding,
      candidateId: id,
      now: NOW,
    });
    await backend.store.markIndeterminate(id, NOW, 1);
    return { claims, evidence };
  }

  it('attack: a claim id holding U+0000 or a lone surrogate names no claim: not_found, nothing recorded', async () => {
    const { claims, evidence } = await indeterminate('claim_a');
    const outcomes = [];
    for (const id of ['claim_a\u0000', 'claim_a\ud800'])
      outcomes.push((await claims.resolve(id, 'retryable', 'operator:7', 'checked')).outcome);
    expect(outcomes).toEqual(['not_found', 'not_found']);
    expect(evidence.decisions()).toEqual([]);
    expect(await backend.store.find('claim_a')).toMatchObject({ status: 'indeterminate' });
  });

  it('attack: a --by or operator identity holding U+0000 or a lone surrogate is refused; nothing recorded', async () => {
    const { claims, evidence } = await indeterminate('claim_b');
    await expect(claims.resolve('claim_b', 'retryable', 'operator:7\u0000', 'checked')).rejects.toThrow(
      VerdictConfigurationError,
    );
    await expect(claims.resolve('claim_b', 'retryable', 'operator:7', 'checked', false, 'sso:\udc00')).rejects.toThrow(
      /operator identity of a claim resolution is a string without U\+0000 or a lone surrogate/,
    );
    expect(evidence.decisions()).toEqual([]);
    expect(await backend.store.find('claim_b')).toMatchObject({ status: 'indeterminate' });
  });

  it('attack: a --reason holding U+0000 or a lone surrogate is refused before anything is recorded', async () => {
    const { claims, evidence } = await indeterminate('claim_r');
    for (const reason of ['checked\u0000', 'checked \ud800'])
      await expect(claims.resolve('claim_r', 'retryable', 'operator:7', reason)).rejects.toThrow(
        /--reason of a claim resolution is a string without U\+0000 or a lone surrogate/,
      );
    expect(evidence.decisions()).toEqual([]);
    expect(await backend.store.find('claim_r')).toMatchObject({ status: 'indeterminate', resolutionReason: null });
  });

  it('control: the claim is resolved by its id, by an operator with an astral character', async () => {
    const { claims, evidence } = await indeterminate('claim_c');
    expect(await claims.resolve('claim_c', 'retryable', 'operator:😀', 'checked 😀', false, 'sso:😀')).toMatchObject({
      outcome: 'resolved',
      claim: { status: 'released', resolvedBy: 'operator:😀', resolutionReason: 'checked 😀' },
    });
    expect(evidence.decisions()).toHaveLength(1);
  });
});
