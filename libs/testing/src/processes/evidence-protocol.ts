import type { CheckpointKey } from '@verdict/nestjs';
import type { DataSourceOptions } from 'typeorm';

/** What an evidence worker starts with: the database, and the application's checkpoint key. */
export interface EvidenceWorkerInit {
  readonly dataSource: DataSourceOptions;
  readonly checkpointKey?: CheckpointKey;
}

/** Append `count` decision records to `stream`, one after another (each followed by its seal). */
export interface AppendRequest {
  readonly stream: string;
  readonly count: number;
  readonly worker: number;
}

/** The ids of the records the worker appended. */
export interface AppendReply {
  readonly ids: readonly string[];
}
