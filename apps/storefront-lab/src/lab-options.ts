import type { LiveLabProvider } from './live/live-lab-provider.js';

/** Where the lab keeps its embedded SQLite database, the live lab's provider, and the clock. */
export interface LabOptions {
  /** A file path, or `:memory:`. The lab seeds it at boot. */
  readonly database: string;
  /**
   * Refuse to open a database file that does not exist instead of creating an empty one (the operator CLI):
   * default `false` (a lab session creates and seeds its own).
   */
  readonly mustExist?: boolean;
  /** The live lab's provider configuration; without it the live lab is off (it says so and runs nothing). */
  readonly live?: LiveLabProvider;
  /**
   * The clock of the session's Verdict module (its windows, evidence, receipts and claims) and of the budget page's
   * standing: default the real time. Tests pass their own, so a window cannot roll over in the middle of a test.
   */
  readonly clock?: () => Date;
}

/** The token of the lab session's {@link LabOptions}: the API tells the page which database file it is on. */
export const LAB_OPTIONS = Symbol('LabOptions');
