import type { AbilityFactory, ActionContext } from '@verdict/nestjs';

/**
 * The lab's stand-in for a concurrent writer: an ability factory that builds each ability as the storefront's
 * does and, when armed, runs one write right after building the next one — Verdict builds it at step 3, after
 * resolving the proposal target and before checking it, so the write lands between the check and the refresh,
 * exactly where a race would put it. Only the "resource swapped between check and execution" case arms it.
 * Per lab session, never shared.
 */
export class ConcurrentWrite implements AbilityFactory {
  private armed: (() => Promise<void>) | undefined;

  constructor(private readonly abilities: AbilityFactory) {}

  /** Runs `write` once, right after the next ability is built (the next proposal's step 3). */
  arm(write: () => Promise<void>): void {
    this.armed = write;
  }

  async createForContext(context: ActionContext): Promise<Awaited<ReturnType<AbilityFactory['createForContext']>>> {
    const ability = await this.abilities.createForContext(context);
    const write = this.armed;
    this.armed = undefined;
    if (write !== undefined) await write();
    return ability;
  }
}
