import type { AnyAbility } from '@casl/ability';
import type { AbilityFactory, ActionContext } from '@verdict/nestjs';

/**
 * An {@link AbilityFactory} that lets a test land a write while Verdict authorizes the proposal: the
 * write queued with {@link interleave} runs once, in the next `createForContext` call, which Verdict makes
 * at step 3 (after the proposal-stage target was resolved, before it is refreshed at step 7). It stands
 * for a concurrent request committing in between, without timing: the write is awaited before the
 * inner factory builds the ability.
 */
export class InterleavingAbilityFactory implements AbilityFactory {
  private pending: (() => Promise<unknown> | unknown) | undefined;

  constructor(private readonly inner: AbilityFactory) {}

  /** Runs `write` once, at the next authorization. */
  interleave(write: () => Promise<unknown> | unknown): void {
    this.pending = write;
  }

  /** Runs the pending write (if any), then asks the inner factory. */
  async createForContext(context: ActionContext): Promise<AnyAbility> {
    const write = this.pending;
    this.pending = undefined;
    if (write !== undefined) await write();
    return this.inner.createForContext(context);
  }
}
