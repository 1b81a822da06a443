import { randomUUID } from 'node:crypto';
import type { CheckpointKey, DecisionRecord } from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder } from '@verdict/nestjs/typeorm';
import { type DatabaseEngine, streamDecision } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';

/** When the fixture's records were recorded: long past any seal's grace. */
export const LONG_AGO = Date.UTC(2026, 0, 1);
/** `second` seconds after {@link LONG_AGO}. */
export const at = (second: number): Date => new Date(LONG_AGO + second * 1000);

/**
 * SQL on one engine's test database, as an insider who can write the tables would run it: `$n` placeholders in order
 * (PostgreSQL's, `?` elsewhere), and `defaults` as the parameters when a statement is given none.
 */
export function engineSql(engine: DatabaseEngine, dataSource: DataSource, defaults: unknown[] = []) {
  return (text: string, parameters?: unknown[]): Promise<Array<Record<string, unknown>>> =>
    dataSource.query(
      text.replaceAll(/\$(\d)/g, (_, index: string) => (engine.name === 'postgres' ? `$${index}` : '?')),
      parameters ?? defaults,
    );
}

/**
 * A recorder keyed with `key` (sealed by hand) and `streams` streams of ten records each, recorded a second apart
 * from {@link LONG_AGO}, sealed in one batch: each stream's checkpoint pins its sequence 10.
 */
export async function sealedStreams(dataSource: DataSource, key: CheckpointKey, streams: number) {
  const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: key, seal: 'manual' });
  const written = new Map<string, DecisionRecord[]>();
  for (let s = 0; s < streams; s++) {
    const stream = `tenant:${randomUUID()}`;
    const records = Array.from({ length: 10 }, (_, i) => streamDecision(stream, `refund ${i}`, at(i)));
    await recorder.recordDecisions(records);
    written.set(stream, records);
  }
  await recorder.seal();
  return { recorder, written };
}
