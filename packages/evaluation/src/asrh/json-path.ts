/** `$.key` for identifier-like keys, `$["odd key"]` otherwise: a path that stays readable and unambiguous. */
export function childPath(parent: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}
