// A worker process of `startEvidenceWorkers`: its own DataSource on the test database and a
// TypeOrmEvidenceRecorder from the built package that seals after each write, as an application node does.
// Run as compiled JS (the pool refuses a build older than the sources), never imported.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { TypeOrmEvidenceRecorder, verdictEntities } from '@verdict/nestjs/typeorm';
import type { AppendReply, AppendRequest, EvidenceWorkerInit } from './evidence-protocol.js';
import { serveParent } from './worker-runtime.js';
import { streamDecision } from '../evidence-stream.js';

serveParent<EvidenceWorkerInit, AppendRequest, AppendReply>(async ({ dataSource: options, checkpointKey }) => {
  const dataSource = await new DataSource({ ...options, entities: verdictEntities, migrations: [] }).initialize();
  const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey });
  return {
    prepare: async ({ stream, count, worker }) => {
      const records = Array.from({ length: count }, (_, i) =>
        streamDecision(stream, `worker ${worker} record ${i}`, new Date(), { facts: { claimAttempt: i } }),
      );
      return async () => {
        for (const record of records) await recorder.recordDecision(record);
        await recorder.whenSealed();
        return { ids: records.map((record) => record.id) };
      };
    },
    handle: async () => {
      throw new Error('Evidence workers only take prepared (broadcast) requests.');
    },
    close: async () => {
      await recorder.whenSealed();
      await dataSource.destroy();
    },
  };
});
