import { Injectable } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { MissingActionContextError } from '../errors/missing-action-context.error.js';
import { type ActionContext, isActionContext } from './action-context.js';

/**
 * Request-scoped action context held in AsyncLocalStorage (continuation-local storage): one value per
 * async call chain, so concurrent requests never see each other's actor.
 *
 * @example
 * await contexts.run({ actor: customer, tenant: 'acme' }, () => agent.invoke(input));
 */
@Injectable()
export class ActionContextStore {
  private readonly storage = new AsyncLocalStorage<ActionContext>();

  /**
   * Runs `fn` with `context` bound for every awaited call inside it. The context is frozen.
   * @throws MissingActionContextError when `context` has no actor, a blank one (`''`), or a tenant that is
   *   neither a non-blank string nor null (an unauthenticated request must not run as an empty principal).
   */
  run<T>(context: ActionContext, fn: () => T): T {
    if (!isActionContext(context)) throw new MissingActionContextError();
    return this.storage.run(Object.freeze({ ...context }), fn);
  }

  /** The bound context, or `undefined` outside any. */
  current(): ActionContext | undefined {
    return this.storage.getStore();
  }

  /** The bound context. @throws MissingActionContextError outside any context (fail closed). */
  require(capability?: string): ActionContext {
    const context = this.storage.getStore();
    if (context === undefined) throw new MissingActionContextError(capability);
    return context;
  }
}
