import type { DataSourceOptions } from 'typeorm';

/** What a gate worker opens: serializable DataSource options; the worker adds Verdict's entities itself. */
export interface GateWorkerInit {
  readonly dataSource: DataSourceOptions;
}

/** One execution claim admission; the worker draws its own unpredictable candidate id. */
export interface AdmitRequest {
  readonly gate: 'admit';
  readonly capability: string;
  readonly policy: string;
  readonly bindingFingerprint: string;
  readonly now: Date;
}

/** `times` rate-limit consumptions of one bucket, one after another. */
export interface ConsumeRequest {
  readonly gate: 'consume';
  readonly bucketFingerprint: string;
  readonly windowStart: Date;
  readonly windowSeconds: number;
  readonly limit: number;
  readonly times: number;
}

export type GateRequest = AdmitRequest | ConsumeRequest;

/** A worker's admission: the store's answer, and the candidate id the worker offered. */
export interface AdmitReply {
  readonly candidateId: string;
  readonly admitted: boolean;
  readonly claimId: string;
  readonly attempt: number;
  /** The refusing claim's status; absent when admitted. */
  readonly status?: string;
}

/** A worker's consumptions, in order. */
export interface ConsumeReply {
  readonly consumptions: ReadonlyArray<{ readonly allowed: boolean; readonly count: number; readonly remaining: number; readonly resetAt: Date }>;
}

export type GateReply = AdmitReply | ConsumeReply;
