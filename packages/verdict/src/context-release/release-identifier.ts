import { InvalidReleaseIdentifierError, MAX_RELEASE_IDENTIFIER_LENGTH } from './invalid-release-identifier.error.js';

const IDENTIFIER = /^[A-Za-z0-9._-]+$/;

/** Returns `value` when it is a release identifier. @throws InvalidReleaseIdentifierError naming `role`, not the value. */
export function releaseIdentifier(value: unknown, role: string): string {
  if (typeof value !== 'string' || value.length > MAX_RELEASE_IDENTIFIER_LENGTH || !IDENTIFIER.test(value)) {
    throw new InvalidReleaseIdentifierError(role);
  }
  return value;
}
