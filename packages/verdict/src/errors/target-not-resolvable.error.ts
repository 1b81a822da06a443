import { VerdictError } from './verdict.error.js';

/**
 * Thrown by a target resolver or a refresh when the resource does not exist or is not visible to the
 * actor. Verdict turns it into a `deny` decision; every other resolver exception is an application fault
 * and propagates unchanged.
 *
 * @example
 * resolveTarget: fromProposal(async ({ arguments: args }) =>
 *   (await orders.findOneBy({ id: args.orderId })) ?? TargetNotResolvable.throw('order not found'))
 */
export class TargetNotResolvable extends VerdictError {
  readonly code = 'VERDICT_TARGET_NOT_RESOLVABLE';

  constructor(reason = 'target not resolvable') {
    super(reason);
  }

  /** Throws in expression position: `?? TargetNotResolvable.throw()`. */
  static throw(reason?: string): never {
    throw new TargetNotResolvable(reason);
  }
}
