/**
 * Identifier rules shared by cases, suites, assertions and the report schema. Identifiers are written to
 * reports verbatim, so they are restricted to a vocabulary that cannot carry free text: letters, digits and
 * `. _ : / -`, starting with a letter or digit.
 */
export const IDENTIFIER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/;

/** Case and suite versions are strings (`'1'`, `'2025-06-01'`, `'1.2.0'`), compared exactly: `'1'` is not `'1.0'`. */
export const VERSION_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;

/** A capability name that is reported verbatim; any other name is reported only as a fingerprint. */
export const CAPABILITY_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_.:-]{0,127}$/;

export function isIdentifier(value: unknown): value is string {
  return typeof value === 'string' && IDENTIFIER_PATTERN.test(value);
}

export function isVersion(value: unknown): value is string {
  return typeof value === 'string' && VERSION_PATTERN.test(value);
}

export function isCapabilityName(value: unknown): value is string {
  return typeof value === 'string' && CAPABILITY_NAME_PATTERN.test(value);
}
