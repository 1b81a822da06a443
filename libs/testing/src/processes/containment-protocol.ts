import type { DataSourceOptions } from 'typeorm';
import type { ContainmentScope } from '@verdict/nestjs';

/** What a containment worker boots: Verdict on this database, reading switches at most once per `cacheTtlMs`. */
export interface ContainmentWorkerInit {
  readonly dataSource: DataSourceOptions;
  readonly cacheTtlMs: number;
}

/** One `notes.ping` proposal by `actor` (its key) in `tenant`, through `VerdictService.execute`. */
export interface PingRequest {
  readonly kind: 'ping';
  readonly actor: string;
  readonly tenant: string;
}

/** An operator's engagement or release through this worker's `ContainmentService`. */
export interface SwitchRequest {
  readonly kind: 'engage' | 'release';
  readonly scope: ContainmentScope;
  readonly subject: string;
}

export type ContainmentWorkerRequest = PingRequest | SwitchRequest;

/** A ping's outcome, and when (wall clock, ms) the worker began the call. */
export interface PingReply {
  readonly executed: boolean;
  readonly stage: string;
  readonly startedAt: number;
}

/** An engagement's or release's outcome, and when (wall clock, ms) the store had it. */
export interface SwitchReply {
  readonly changed: boolean;
  readonly committedAt: number;
}

export type ContainmentWorkerReply = PingReply | SwitchReply;
