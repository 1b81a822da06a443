import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { type ChainVerification, type CheckpointKey, EvidenceKind, InMemoryEvidenceRecorder } from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { streamDecision, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const TABLE = 'verdict_decision_records';
const LINKS = 'verdict_evidence_links';
const CHECKPOINTS = 'verdict_evidence_checkpoints';
const KEY: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'k', secret: 's' };
const LONG_AGO = Date.UTC(2026, 0, 1);
const engine = { name: 'sqlite' as const };

async function setup(dataSource: DataSource, batches = [10, 10]) {
  const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
  const stream = `tenant:${randomUUID()}`;
  let second = 0;
  for (const size of batches) {
    for (let i = 0; i < size; i++, second++)
      await recorder.recordDecision(streamDecision(stream, `refund ${second}`, new Date(LONG_AGO + second * 1000)));
    await recorder.seal();
  }
  const sql = (text: string, parameters: unknown[] = [stream]) => dataSource.query(text, parameters);
  const verdict = async (witness?: ChainVerification) =>
    (await recorder.verify({ witness: witness ? [witness] : undefined })).find(
      (v) => v.kind === EvidenceKind.Decision && v.stream === stream,
    )!;
  return { recorder, stream, sql, verdict };
}

describe('review', () => {
  it('A: rewriting a pinned tail then sealing hides under a duplicate-sequence checkpoint', async () => {
    await withDataSource(engine, SCHEMA, async (dataSource) => {
      const { sql, verdict, stream } = await setup(dataSource);
      const witness = await verdict();
      expect(witness).toMatchObject({ intact: true, checkpointHead: { checkpointSequence: 2, sequence: 20 } });
      // insider: edit records 11..20, drop their links, mark pending
      await sql(
        `UPDATE ${TABLE} SET reason = 'forged', link_pending = 1 WHERE id IN (SELECT record_id FROM ${LINKS} WHERE stream = ? AND sequence > 10)`,
      );
      await sql(`DELETE FROM ${LINKS} WHERE stream = ? AND sequence > 10`);
      // before any seal, verify notices
      console.log('before seal', JSON.stringify(await verdict()));
      // operator's routine seal (no key needed for linking, but the app/CLI has the key)
      await new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' }).seal();
      console.log(JSON.stringify(await sql(`SELECT checkpoint_sequence, sequence, hash FROM ${CHECKPOINTS} WHERE stream = ? ORDER BY sequence`)));
      const after = await verdict();
      const withWitness = await verdict(witness);
      console.log('after seal', JSON.stringify(after), JSON.stringify(withWitness));
      const reasons = await sql(`SELECT reason FROM ${TABLE} WHERE stream = ? AND reason = 'forged'`);
      expect(reasons.length).toBe(10);
      expect(after.intact).toBe(true);
      expect(withWitness.intact).toBe(true);
    });
  });

  it('B: prune re-signs a tampered head: checkpoint_mismatch disappears', async () => {
    await withDataSource(engine, SCHEMA, async (dataSource) => {
      const { sql, verdict, recorder, stream } = await setup(dataSource, [5, 5, 5, 5]);
      const witness = await verdict();
      // insider edits record 12 (pinned by checkpoint at 15) and relinks 12..20 without key
      const [{ record_id: id }] = await sql(`SELECT record_id FROM ${LINKS} WHERE stream = ? AND sequence = 12`);
      await sql(`UPDATE ${TABLE} SET reason = 'forged' WHERE id = ?`, [id]);
      await sql(`DELETE FROM ${LINKS} WHERE stream = ? AND sequence >= 12`);
      await sql(`UPDATE ${TABLE} SET link_pending = 1 WHERE stream = ? AND id NOT IN (SELECT record_id FROM ${LINKS} WHERE stream = ?)`, [stream, stream]);
      await new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }).seal();
      const tampered = await verdict();
      console.log('tampered', JSON.stringify(tampered));
      expect(tampered.intact).toBe(false);
      // routine retention: prune records before second 3
      console.log(await recorder.prune(new Date(LONG_AGO + 3000)));
      const after = await verdict();
      const withWitness = await verdict(witness);
      console.log('after prune', JSON.stringify(after), JSON.stringify(withWitness));
      expect((await sql(`SELECT reason FROM ${TABLE} WHERE id = ?`, [id]))[0].reason).toBe('forged');
      expect(after.intact).toBe(true);
      expect(withWitness.intact).toBe(true);
    });
  });

  it('C: in-memory witness after two prunes', async () => {
    const recorder = new InMemoryEvidenceRecorder();
    const stream = 'default';
    for (let i = 0; i < 10; i++)
      await recorder.recordDecision(streamDecision(stream, `r${i}`, new Date(LONG_AGO + i * 1000)));
    await recorder.prune(new Date(LONG_AGO + 3000));
    const witness = (await recorder.verify()).find((v) => v.kind === 'decision')!;
    console.log('witness', JSON.stringify(witness));
    await recorder.prune(new Date(LONG_AGO + 6000));
    const after = (await recorder.verify({ witness: [witness] })).find((v) => v.kind === 'decision')!;
    console.log('after', JSON.stringify(after));
    expect(after.intact).toBe(false);
  });
});
