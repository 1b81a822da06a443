import { type LoadedSuiteModule, loadSuiteModule } from './suite-module.js';
import { SecuritySuite } from '../suites/security-suite.js';

/** A suite module loaded for `verdict-eval run`, and what to call once the run is over. */
export type LoadedSuite = LoadedSuiteModule<SecuritySuite>;

/**
 * Imports a suite module: its default export is a `SecuritySuite` or a (possibly async) function
 * returning one; an optional named export `dispose()` releases what the suite opened (databases, apps).
 * `dispose()` is called too when the factory throws or returns anything else, before the error is rethrown.
 * @throws Error naming the module when the default export is neither
 */
export function loadSuite(file: string): Promise<LoadedSuite> {
  return loadSuiteModule(file, SecuritySuite);
}
