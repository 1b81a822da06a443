import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { disposedAfterFailedLoad, disposerOf } from './suite-module-disposer.js';
import type { LiveSuite } from '../live/live-suite.js';

/** A live suite module loaded for `verdict-eval live`, and what to call once the run is over. */
export interface LoadedLiveSuite {
  readonly suite: LiveSuite;
  readonly dispose: () => Promise<void>;
}

/**
 * Imports a live suite module: its default export is a `LiveSuite` or a (possibly async) function
 * returning one; an optional named export `dispose()` releases what the suite opened.
 * `dispose()` is called too when the factory throws or returns anything else, before the error is rethrown.
 * @throws Error naming the module when the default export is neither
 */
export async function loadLiveSuite(file: string): Promise<LoadedLiveSuite> {
  const { LiveSuite } = await import('../live/live-suite.js');
  const module = (await import(pathToFileURL(resolve(file)).href)) as { default?: unknown; dispose?: unknown };
  const dispose = disposerOf(module);
  try {
    const exported =
      typeof module.default === 'function' && !(module.default instanceof LiveSuite)
        ? await (module.default as () => unknown)()
        : module.default;
    if (!(exported instanceof LiveSuite))
      throw new Error(`${file}: the default export must be a LiveSuite or a function returning one`);
    return { suite: exported, dispose };
  } catch (error) {
    // The factory may have opened what `dispose()` closes (an app, a pool) before it failed: left open, it would
    // keep the process alive instead of letting the command exit.
    throw await disposedAfterFailedLoad(dispose, error);
  }
}
