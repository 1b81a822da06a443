import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { disposedAfterFailedLoad, disposerOf } from './suite-module-disposer.js';

/** A suite module loaded for a command, and what to call once the command is over. */
export interface LoadedSuiteModule<TSuite> {
  readonly suite: TSuite;
  readonly dispose: () => Promise<void>;
}

/**
 * Imports a suite module: its default export is a `kind` or a (possibly async) function returning one; an optional
 * named export `dispose()` releases what the suite opened (databases, apps). `dispose()` is called too when the
 * factory throws or returns anything else, before the error is rethrown.
 * @throws Error naming the module when the default export is neither
 */
export async function loadSuiteModule<TSuite>(
  file: string,
  kind: abstract new (...args: never[]) => TSuite,
): Promise<LoadedSuiteModule<TSuite>> {
  const module = (await import(pathToFileURL(resolve(file)).href)) as { default?: unknown; dispose?: unknown };
  const dispose = disposerOf(module);
  try {
    const exported =
      typeof module.default === 'function' && !(module.default instanceof kind)
        ? await (module.default as () => unknown)()
        : module.default;
    if (!(exported instanceof kind))
      throw new Error(`${file}: the default export must be a ${kind.name} or a function returning one`);
    return { suite: exported, dispose };
  } catch (error) {
    // The factory may have opened what `dispose()` closes (an app, a pool) before it failed: left open, it would
    // keep the process alive instead of letting the command exit.
    throw await disposedAfterFailedLoad(dispose, error);
  }
}
