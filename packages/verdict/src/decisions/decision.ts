import { Disposition } from './disposition.js';
import { Stage } from './stage.js';

/**
 * A policy outcome: disposition, stage and the internal reason. The internal reason goes to evidence
 * only; the model and the end user see the configured public message.
 */
export class Decision {
  private constructor(
    readonly disposition: Disposition,
    readonly stage: Stage,
    readonly reason: string,
  ) {}

  static permit(stage: Stage, reason = 'permitted'): Decision {
    return new Decision(Disposition.Permit, stage, reason);
  }

  static deny(stage: Stage, reason: string): Decision {
    return new Decision(Disposition.Deny, stage, reason);
  }

  static of(disposition: Disposition, stage: Stage, reason: string): Decision {
    return new Decision(disposition, stage, reason);
  }

  get permitted(): boolean {
    return this.disposition === Disposition.Permit;
  }
}
