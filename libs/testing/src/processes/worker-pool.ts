import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { assertCurrentBuild } from './current-build.js';
import type { WorkerKeeper } from './worker-keeper.js';

/**
 * Parent → worker. Sequence 0, and any message marked `init`, carries an init payload: the worker closes what an
 * earlier init opened and starts anew. `reset` closes it and waits for the next init. A request either runs at once,
 * or (with `prepare`) is only prepared and answered `'ready'`; a later `go` naming its sequence runs it.
 */
export type WorkerRequestMessage<T> =
  | { readonly sequence: number; readonly payload: T; readonly prepare?: true; readonly init?: true }
  | { readonly sequence: number; readonly go: number }
  | { readonly sequence: number; readonly reset: true };

/** Worker → parent: the reply to one request, or its error. */
export type WorkerReplyMessage<T> =
  | { readonly sequence: number; readonly reply: T }
  | {
      readonly sequence: number;
      readonly error: { readonly name: string; readonly message: string; readonly code?: string };
    };

interface Pending {
  resolve(reply: unknown): void;
  reject(error: Error): void;
}

/** How one worker process ended. */
export interface WorkerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * N real OS processes (`child_process.fork` with IPC and structured-clone serialization, so Dates
 * survive) running one compiled worker script, driven by request/reply messages. Workers are started
 * once and reused for every round, so contention tests pay for process start-up once.
 *
 * The script must come from a current build: `start` refuses a build older than its sources
 * ({@link assertCurrentBuild}), so a test never passes on code that is no longer in the repository.
 * {@link WorkerPool.broadcast} is a start barrier: every worker prepares its call, and only when all of
 * them are ready does any of them run it. A worker that exits rejects its pending requests instead of
 * hanging the test. Started with a {@link WorkerKeeper}, the processes outlive `close` and serve the next `start`
 * of the same script and size with a new init (another engine's database), so a file pays for their start-up once.
 *
 * @example
 * const pool = await WorkerPool.start<Init, Request, Reply>(new URL('../../dist/processes/gate-worker.js', import.meta.url), 8, init);
 * const replies = await pool.broadcast({ round: 1 }); // one reply per worker, in worker order
 * await pool.close();
 */
export class WorkerPool<TRequest, TReply> {
  private sequence = 0;
  /** Closed and kept by the keeper, until a `start` takes it again. */
  private parked = false;
  private readonly pending: Array<Map<number, Pending>>;
  private readonly exits: Array<Promise<WorkerExit>>;

  private constructor(
    private readonly children: ChildProcess[],
    private readonly script: URL,
    private readonly keeper: WorkerKeeper | undefined,
  ) {
    this.pending = children.map(() => new Map());
    this.exits = children.map(
      (child, index) =>
        new Promise<WorkerExit>((resolve) => {
          child.on('message', (message: WorkerReplyMessage<unknown>) => this.settle(index, message));
          child.on('exit', (code, signal) => {
            for (const pending of this.pending[index]!.values())
              pending.reject(new Error(`Worker ${index} exited (code ${code}, signal ${signal}) before replying.`));
            this.pending[index]!.clear();
            resolve({ code, signal });
          });
        }),
    );
  }

  /**
   * Forks `count` workers running `script` and waits until each has accepted `init`. With `keeper`, takes the
   * processes it kept for `script` and `count` instead, when it has them, and gives them `init`.
   *
   * @throws StaleBuildError, before forking, when `script`'s build is older than its sources.
   */
  static async start<TInit, TRequest, TReply>(
    script: URL,
    count: number,
    init: TInit,
    keeper?: WorkerKeeper,
  ): Promise<WorkerPool<TRequest, TReply>> {
    assertCurrentBuild(script);
    const kept = keeper?.take(script, count) as WorkerPool<TRequest, TReply> | undefined;
    // A kept worker that died meanwhile: the survivors end and new processes are forked.
    if (kept !== undefined && !kept.running) await kept.stop();
    else if (kept !== undefined) {
      kept.parked = false;
      await kept.initAll(init, true);
      return kept;
    }
    const children = Array.from({ length: count }, () =>
      // No inherited execArgv: Jest's --experimental-vm-modules has no business in a plain worker.
      fork(fileURLToPath(script), [], {
        execArgv: [],
        serialization: 'advanced',
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
    const pool = new WorkerPool<TRequest, TReply>(children, script, keeper);
    await pool.initAll(init, false);
    return pool;
  }

  /**
   * Gives every worker `init` (after its first, as a new init that replaces what the last one opened). When one
   * refuses it, every process ends and its error is rethrown.
   */
  private async initAll(init: unknown, again: boolean): Promise<void> {
    try {
      await Promise.all(
        this.children.map((_, index) =>
          this.request(index, { sequence: again ? ++this.sequence : 0, payload: init, init: true }),
        ),
      );
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  get size(): number {
    return this.children.length;
  }

  /** Whether every worker is still connected. */
  private get running(): boolean {
    return this.children.every((child) => child.connected);
  }

  /**
   * Races one request on every worker (a function gets the worker's index); replies in worker order.
   * A start barrier: each worker first prepares the call (its handler's `prepare`: statement, arguments,
   * a live connection) and answers ready; only when every worker is ready does the pool send each of them
   * `go`, a message with no payload, and each runs the prepared call as soon as it arrives. How long a
   * request takes to reach or be prepared by a worker never decides which worker calls first.
   */
  async broadcast(request: TRequest | ((index: number) => TRequest)): Promise<TReply[]> {
    const prepared = ++this.sequence;
    const payload = (index: number) =>
      typeof request === 'function' ? (request as (index: number) => TRequest)(index) : request;
    await Promise.all(
      this.children.map((_, index) =>
        this.request(index, { sequence: prepared, payload: payload(index), prepare: true }),
      ),
    );
    const go = ++this.sequence;
    return Promise.all(
      this.children.map((_, index) => this.request(index, { sequence: go, go: prepared }) as Promise<TReply>),
    );
  }

  /** Sends one request to worker `index`, which runs it at once. */
  send(index: number, request: TRequest): Promise<TReply> {
    return this.request(index, { sequence: ++this.sequence, payload: request }) as Promise<TReply>;
  }

  /** Kills worker `index` (SIGKILL by default: no cleanup runs) and resolves when it has exited. */
  kill(index: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<WorkerExit> {
    this.children[index]!.kill(signal);
    return this.exits[index]!;
  }

  /**
   * Started with a keeper and with every worker still running: each worker closes what its init opened (within
   * `graceMs`), and the keeper keeps the processes for the next `start`; closing it again before then does nothing.
   * Otherwise, or when a worker fails or outlasts `graceMs` closing, as {@link WorkerPool.stop}.
   */
  async close(graceMs = 10_000): Promise<void> {
    if (this.parked) return;
    if (this.keeper !== undefined && this.running) {
      let deadline: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          Promise.all(this.children.map((_, index) => this.request(index, { sequence: ++this.sequence, reset: true }))),
          new Promise((_, reject) => {
            deadline = setTimeout(() => reject(new Error(`The workers did not close within ${graceMs} ms.`)), graceMs);
          }),
        ]);
        this.parked = true;
        await this.keeper.keep(this.script, this.size, this as WorkerPool<unknown, unknown>);
        return;
      } catch {
        // A worker that could not close its resources is not reused: the processes end below.
        this.parked = false;
      } finally {
        clearTimeout(deadline);
      }
    }
    await this.stop(graceMs);
  }

  /** Disconnects every worker so it can close its resources and exit; kills any still alive after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    const deadline = setTimeout(
      () =>
        this.children.forEach((child) => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')),
      graceMs,
    );
    try {
      for (const child of this.children) if (child.connected) child.disconnect();
      await Promise.all(this.exits);
    } finally {
      clearTimeout(deadline);
    }
  }

  private request(index: number, message: WorkerRequestMessage<unknown>): Promise<unknown> {
    const child = this.children[index]!;
    const { sequence } = message;
    return new Promise((resolve, reject) => {
      if (!child.connected) return reject(new Error(`Worker ${index} is not running.`));
      this.pending[index]!.set(sequence, { resolve, reject });
      child.send(message, (error) => {
        if (error) {
          this.pending[index]!.delete(sequence);
          reject(error);
        }
      });
    });
  }

  private settle(index: number, message: WorkerReplyMessage<unknown>): void {
    const pending = this.pending[index]!.get(message.sequence);
    if (pending === undefined) return;
    this.pending[index]!.delete(message.sequence);
    if ('error' in message)
      pending.reject(
        Object.assign(new Error(`Worker ${index}: ${message.error.name}: ${message.error.message}`), {
          code: message.error.code,
        }),
      );
    else pending.resolve(message.reply);
  }
}
