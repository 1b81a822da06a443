import { alwaysEnforced, isAlwaysEnforced } from './always-enforced.js';
import { Disposition } from './disposition.js';
import type { SecuritySignal } from './security-signal.js';
import { Stage } from './stage.js';

/**
 * A policy outcome: disposition, stage and the internal reason. The internal reason goes to evidence
 * only; the model and the end user see the configured public message. `signal` names the security
 * event a decision stands for when the stage alone does not say it (docs/evidence.md, "Security events").
 */
export class Decision {
  /** The security event this decision raises beyond its stage's default; absent for most decisions. */
  declare readonly signal?: SecuritySignal;

  private constructor(
    readonly disposition: Disposition,
    readonly stage: Stage,
    readonly reason: string,
    signal?: SecuritySignal,
  ) {
    // Only set when present: a decision without a signal keeps the three fields it always had.
    if (signal !== undefined) Object.defineProperty(this, 'signal', { value: signal, enumerable: true });
  }

  static permit(stage: Stage, reason = 'permitted'): Decision {
    return new Decision(Disposition.Permit, stage, reason);
  }

  /** @example Decision.deny(Stage.TargetRefresh, 'resource substitution', SecuritySignal.ResourceSubstitution) */
  static deny(stage: Stage, reason: string, signal?: SecuritySignal): Decision {
    return new Decision(Disposition.Deny, stage, reason, signal);
  }

  static of(disposition: Disposition, stage: Stage, reason: string, signal?: SecuritySignal): Decision {
    return new Decision(disposition, stage, reason, signal);
  }

  /** This decision, raising `signal` (still {@link alwaysEnforced} if it was). */
  signalling(signal: SecuritySignal): Decision {
    const signalled = new Decision(this.disposition, this.stage, this.reason, signal);
    return isAlwaysEnforced(this) ? alwaysEnforced(signalled) : signalled;
  }

  get permitted(): boolean {
    return this.disposition === Disposition.Permit;
  }
}
