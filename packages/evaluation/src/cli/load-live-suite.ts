import { type LoadedSuiteModule, loadSuiteModule } from './suite-module.js';
import type { LiveSuite } from '../live/live-suite.js';

/** A live suite module loaded for `verdict-eval live`, and what to call once the run is over. */
export type LoadedLiveSuite = LoadedSuiteModule<LiveSuite>;

/**
 * Imports a live suite module: its default export is a `LiveSuite` or a (possibly async) function
 * returning one; an optional named export `dispose()` releases what the suite opened.
 * `dispose()` is called too when the factory throws or returns anything else, before the error is rethrown.
 * @throws Error naming the module when the default export is neither
 */
export async function loadLiveSuite(file: string): Promise<LoadedLiveSuite> {
  const { LiveSuite } = await import('../live/live-suite.js');
  return loadSuiteModule(file, LiveSuite);
}
