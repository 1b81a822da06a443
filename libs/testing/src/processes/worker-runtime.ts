import type { WorkerReplyMessage, WorkerRequestMessage } from './worker-pool.js';

/** What a worker does with each request, and how it releases its resources. */
export interface WorkerHandler<TRequest, TReply> {
  handle(request: TRequest): Promise<TReply>;
  /**
   * Does everything a raced request needs before its call (arguments, statement, a live connection) and
   * returns the call itself, which runs when the pool's `go` arrives. Default: nothing to prepare, the
   * call is `handle(request)`.
   */
  prepare?(request: TRequest): Promise<() => Promise<TReply>>;
  close(): Promise<void>;
}

/**
 * The worker side of {@link WorkerPool}: the first message (sequence 0) is the init payload given to
 * `start`; every later one is a request for the handler it returned, run at once, or prepared and
 * answered `'ready'` until the pool's `go` for it arrives (the start barrier of `broadcast`). A later init
 * (a kept pool started again) closes the handler and starts another; a reset closes it. When the
 * parent disconnects, the handler is closed and the process exits.
 *
 * @example
 * serveParent(async (init) => { const db = await open(init); return { handle: (r) => gate(db, r), close: () => db.destroy() }; });
 */
export function serveParent<TInit, TRequest, TReply>(
  start: (init: TInit) => Promise<WorkerHandler<TRequest, TReply>>,
): void {
  let handler: Promise<WorkerHandler<TRequest, TReply>> | undefined;
  const prepared = new Map<number, () => Promise<TReply>>();
  const reply = (message: WorkerReplyMessage<TReply | 'ready'>) => process.send?.(message);
  const started = async (): Promise<WorkerHandler<TRequest, TReply>> => {
    if (handler === undefined) throw new Error('The worker received a request before its init.');
    return handler;
  };

  /** Closes what the last init opened, if anything, and forgets its prepared calls. */
  const closeHandler = async (): Promise<void> => {
    const closing = handler;
    handler = undefined;
    prepared.clear();
    // An init that failed opened nothing to close.
    const started = await closing?.catch(() => undefined);
    await started?.close();
  };

  process.on('message', async (incoming: WorkerRequestMessage<unknown>) => {
    const { sequence } = incoming;
    try {
      if ('go' in incoming) {
        const call = prepared.get(incoming.go);
        if (call === undefined)
          throw new Error(`The worker received go for request ${incoming.go}, which it never prepared.`);
        prepared.delete(incoming.go);
        reply({ sequence, reply: await call() });
      } else if ('reset' in incoming) {
        await closeHandler();
        reply({ sequence, reply: 'ready' });
      } else if (sequence === 0 || incoming.init) {
        await closeHandler();
        handler = start(incoming.payload as TInit);
        await handler;
        reply({ sequence, reply: 'ready' });
      } else if (incoming.prepare) {
        const current = await started();
        const request = incoming.payload as TRequest;
        prepared.set(
          sequence,
          current.prepare === undefined ? () => current.handle(request) : await current.prepare(request),
        );
        reply({ sequence, reply: 'ready' });
      } else {
        reply({ sequence, reply: await (await started()).handle(incoming.payload as TRequest) });
      }
    } catch (error) {
      const {
        name = 'Error',
        message = String(error),
        code,
      } = error as { name?: string; message?: string; code?: unknown };
      reply({ sequence, error: { name, message, ...(typeof code === 'string' ? { code } : {}) } });
    }
  });

  process.on('disconnect', () => {
    const closing = handler === undefined ? Promise.resolve() : handler.then((started) => started.close());
    closing.then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
