import type { ActionContextOptions } from '../context/action-context-options.interface.js';
import type { ClockOptions } from '../shared/clock-options.interface.js';
import type { ContainmentOptions } from './containment-options.interface.js';

/** What containment reads of the module options: the kill switches, the actor key and the clock. */
export interface KillSwitchOptions extends ActionContextOptions, ClockOptions {
  /**
   * Kill switches per capability, actor and tenant, checked before anything else (docs/containment.md).
   * Default: none (nothing is ever contained).
   *
   * @example containment: { store: new TypeOrmContainmentStore(dataSource), cacheTtlMs: 2_000 }
   */
  readonly containment?: ContainmentOptions;
}

/** Injects the module's {@link KillSwitchOptions} (provided by the core module). */
export const KILL_SWITCH_OPTIONS = Symbol('VerdictKillSwitchOptions');
