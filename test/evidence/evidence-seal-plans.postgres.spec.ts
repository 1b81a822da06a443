import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import {
  countingStatements,
  databaseEngines,
  markPending,
  seedLinkedStream,
  streamDecision,
  withDataSource,
} from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';

const LINKED = 20_000;
const postgres = databaseEngines().find((engine) => engine.name === 'postgres');
const SCANNED = /^(verdict_decision_records|verdict_evidence_links|verdict_evidence_pending)$/;

/** Every (node type, relation, index) of a plan, from EXPLAIN (FORMAT JSON). */
async function planNodes(dataSource: DataSource, sql: string, parameters: readonly unknown[]): Promise<string[]> {
  const [{ 'QUERY PLAN': plan }] = await dataSource.query(`EXPLAIN (FORMAT JSON) ${sql}`, [...parameters]);
  const nodes: string[] = [];
  const walk = (node: { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: unknown[] }) => {
    nodes.push([node['Node Type'], node['Relation Name'] ?? '', node['Index Name'] ?? ''].join('|'));
    for (const child of node.Plans ?? []) walk(child as typeof node);
  };
  walk(plan[0].Plan);
  return nodes;
}

/** A read of the records, the links or the queue that grows with the tables: a sequential scan, or a bitmap over an index. */
const scans = (nodes: string[]) =>
  nodes.filter((node) => {
    const [type, relation] = node.split('|');
    if (type === 'Seq Scan') return SCANNED.test(relation ?? '');
    return type === 'Bitmap Index Scan';
  });

(postgres === undefined ? describe.skip : describe)('seal statements [postgres, EXPLAIN, fresh schema]', () => {
  it(`reads no record, link or queue table whole at ${LINKED} linked records and ${LINKED} queued in another stream, without statistics; the anti-join before did`, async () => {
    await withDataSource(postgres!, { entities: verdictEntities, migrations: verdictMigrations }, async (admin) => {
      const stream = `tenant:${randomUUID()}`;
      // Never analyzed: the planner has the table sizes and nothing else.
      await seedLinkedStream(admin, stream, LINKED);
      // Another stream's backlog in the queue: linked already (an older sealer's), so a seal only drops it.
      const backlog = `tenant:${randomUUID()}`;
      await seedLinkedStream(admin, backlog, LINKED);
      await markPending(admin, 'stream = $1', [backlog], true);
      const counter = await countingStatements(admin);
      const dataSource = counter.dataSource;
      try {
        const key = { algorithm: 'hmac-sha256', keyId: 'plans', secret: 'plans secret' } as const;
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual', checkpointKey: key });
        const records = Array.from({ length: 500 }, (_, i) => streamDecision(stream, `refund ${i}`));
        await recorder.recordDecisions(records);
        let report: unknown;
        await counter.during(async () => (report = await recorder.seal()));
        // One checkpoint for the 500; one pins the backlog stream's head, which no checkpoint pinned.
        expect(report).toEqual({ sealed: 500, checkpoints: 2 });
        const explained = counter.sent.filter(
          ({ sql }) => /^\s*(SELECT|WITH|UPDATE|DELETE)/i.test(sql) && !/advisory/.test(sql),
        );
        expect(explained.length).toBeGreaterThan(5);
        for (const { sql, parameters } of explained)
          expect({ sql, scans: scans(await planNodes(admin, sql, parameters)) }).toEqual({ sql, scans: [] });

        // Not vacuous: the statement seals found unlinked records with before reads the tables whole.
        const antiJoin = await planNodes(
          admin,
          `SELECT r.* FROM verdict_decision_records r WHERE r.stream = $1 AND NOT EXISTS (SELECT 1 FROM verdict_evidence_links l WHERE l.kind = $2 AND l.record_id = r.id) ORDER BY r.recorded_at, r.id LIMIT 500`,
          [stream, 'decision'],
        );
        expect(scans(antiJoin)).not.toEqual([]);
      } finally {
        await dataSource.destroy();
      }
    });
  });
});
