import { Disposition, Stage } from '@verdict/nestjs';
import { InvalidObservationError } from './invalid-observation.error.js';

const DISPOSITIONS: ReadonlySet<unknown> = new Set(Object.values(Disposition));
const STAGES: ReadonlySet<unknown> = new Set(Object.values(Stage));

/** A disposition, or `null` when no Verdict decision was observed. */
export function dispositionOrNull(value: unknown, where: string): Disposition | null {
  if (value === undefined || value === null) return null;
  if (!DISPOSITIONS.has(value))
    throw new InvalidObservationError(
      `${where}: the disposition must be one of ${[...DISPOSITIONS].join(', ')} or null`,
    );
  return value as Disposition;
}

/** A stage, or `null` when unknown. */
export function stageOrNull(value: unknown, where: string): Stage | null {
  if (value === undefined || value === null) return null;
  if (!STAGES.has(value))
    throw new InvalidObservationError(`${where}: the stage must be one of ${[...STAGES].join(', ')} or null`);
  return value as Stage;
}

export function booleanFact(value: unknown, where: string): boolean {
  if (typeof value !== 'boolean') throw new InvalidObservationError(`${where} must be a boolean`);
  return value;
}

/** Only a permitted proposal runs its executor; `null` marks a tool outside Verdict (a naive baseline). */
export function checkExecutedUnderDecision(executed: boolean, disposition: Disposition | null, where: string): void {
  if (executed && disposition !== null && disposition !== Disposition.Permit) {
    throw new InvalidObservationError(
      `${where}: executed is true but the disposition is ${disposition}; only permit executes`,
    );
  }
}
