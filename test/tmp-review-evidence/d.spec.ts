import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { type CheckpointKey, EvidenceKind } from '@verdict/nestjs';
import { TypeOrmEvidenceQuery, TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { streamDecision, withDataSource } from '@verdict/testing-kit';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const KEY: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'k', secret: 's' };
const LONG_AGO = Date.UTC(2026, 0, 1);

describe('review D', () => {
  for (const prune of [false, true])
    it(`a forged record with a bogus link at a sequence verify never reads (prune=${prune})`, async () => {
      await withDataSource({ name: 'sqlite' }, SCHEMA, async (dataSource) => {
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
        const stream = `tenant:${randomUUID()}`;
        for (let i = 0; i < 6; i++)
          await recorder.recordDecision(streamDecision(stream, `r${i}`, new Date(LONG_AGO + i * 1000)));
        await recorder.seal();
        if (prune) await recorder.prune(new Date(LONG_AGO + 3000));
        // insider: a forged decision, "linked" at sequence 0 (or 2, below the prune anchor)
        const forged = streamDecision(stream, 'forged: approved by cfo', new Date(LONG_AGO + 10_000));
        await recorder.recordDecision(forged);
        const seq = prune ? 2 : 0;
        await dataSource.query(
          `INSERT INTO verdict_evidence_links (kind, stream, sequence, record_id, previous_hash, hash) VALUES ('decision', ?, ?, ?, ?, ?)`,
          [stream, seq, forged.id, '0'.repeat(64), 'f'.repeat(64)],
        );
        await dataSource.query(`UPDATE verdict_decision_records SET link_pending = NULL WHERE id = ?`, [forged.id]);
        const v = (await recorder.verify()).find((x) => x.kind === EvidenceKind.Decision && x.stream === stream)!;
        console.log(JSON.stringify(v));
        const listed = await new TypeOrmEvidenceQuery(dataSource).list({});
        expect(listed.some((r) => r.id === forged.id)).toBe(true);
        expect(v).toMatchObject({ intact: true, unsealed: 0 });
        // and the next seal leaves it alone
        expect(await recorder.seal()).toEqual({ sealed: 0, checkpoints: 0 });
      });
    });
});
