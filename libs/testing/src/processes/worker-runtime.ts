import type { WorkerReplyMessage, WorkerRequestMessage } from './worker-pool.js';

/** What a worker does with each request, and how it releases its resources. */
export interface WorkerHandler<TRequest, TReply> {
  handle(request: TRequest): Promise<TReply>;
  close(): Promise<void>;
}

/**
 * The worker side of {@link WorkerPool}: the first message (sequence 0) is the init payload given to
 * `start`; every later one is a request for the handler it returned. When the parent disconnects, the
 * handler is closed and the process exits.
 *
 * @example
 * serveParent(async (init) => { const db = await open(init); return { handle: (r) => gate(db, r), close: () => db.destroy() }; });
 */
export function serveParent<TInit, TRequest, TReply>(start: (init: TInit) => Promise<WorkerHandler<TRequest, TReply>>): void {
  let handler: Promise<WorkerHandler<TRequest, TReply>> | undefined;
  const reply = (message: WorkerReplyMessage<TReply | 'ready'>) => process.send?.(message);

  process.on('message', async ({ sequence, payload }: WorkerRequestMessage<unknown>) => {
    try {
      if (sequence === 0) {
        handler = start(payload as TInit);
        await handler;
        reply({ sequence, reply: 'ready' });
      } else {
        if (handler === undefined) throw new Error('The worker received a request before its init.');
        reply({ sequence, reply: await (await handler).handle(payload as TRequest) });
      }
    } catch (error) {
      const { name = 'Error', message = String(error), code } = error as { name?: string; message?: string; code?: unknown };
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
