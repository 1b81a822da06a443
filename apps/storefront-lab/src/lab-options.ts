import type { LiveLabProvider } from './live/live-lab-provider.js';

/** Where the lab keeps its embedded SQLite database, and the live lab's provider. */
export interface LabOptions {
  /** A file path, or `:memory:`. The lab seeds it at boot. */
  readonly database: string;
  /** The live lab's provider configuration; without it the live lab is off (it says so and runs nothing). */
  readonly live?: LiveLabProvider;
}
