const CLASS_NAME = /^[A-Za-z_$][A-Za-z0-9_$]{0,127}$/;

/**
 * The class name of a thrown value, for a harness error. Never the message: it may quote raw input or
 * output. Primitives (`throw 'text'`) are reported as `NonErrorValue`; objects whose class cannot be read
 * as a plain identifier as `Error` or `Object`.
 */
export function errorClassOf(thrown: unknown): string {
  if ((typeof thrown !== 'object' && typeof thrown !== 'function') || thrown === null) return 'NonErrorValue';
  try {
    const name: unknown = (thrown as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string' && CLASS_NAME.test(name)) return name;
    return thrown instanceof Error ? 'Error' : 'Object';
  } catch {
    return 'Error'; // a hostile proxy whose traps throw
  }
}
