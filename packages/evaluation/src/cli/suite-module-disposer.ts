/** The named `dispose()` export of a suite module, or a no-op when it has none. */
export function disposerOf(module: { dispose?: unknown }): () => Promise<void> {
  const dispose = module.dispose;
  return typeof dispose === 'function' ? async () => void (await (dispose as () => unknown)()) : async () => {};
}

/**
 * Calls a suite module's `dispose()` after its suite could not be built, and returns the error to throw: the load
 * error itself, or — when `dispose()` fails as well — an error that names both (the load error as its `cause`).
 */
export async function disposedAfterFailedLoad(dispose: () => Promise<void>, error: unknown): Promise<unknown> {
  try {
    await dispose();
    return error;
  } catch (disposeError) {
    const loadMessage = error instanceof Error ? error.message : 'the suite could not be built';
    const disposeClass = disposeError instanceof Error ? disposeError.name : 'NonErrorValue';
    return new Error(`${loadMessage} (and dispose() failed: ${disposeClass})`, { cause: error });
  }
}
