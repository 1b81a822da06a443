import { fingerprintString } from '@verdict/nestjs';
import { isCapabilityName, isIdentifier } from '../cases/evaluation-identifier.js';
import { AssertionDefinitionError } from './assertion-definition.error.js';

/** A short, stable stand-in for a value that must not appear in a report (a side-effect name, a forbidden string). */
export function pseudonym(value: string): string {
  return fingerprintString(value).slice(0, 16);
}

export function checkedCapability(capability: unknown): string {
  if (!isCapabilityName(capability)) {
    throw new AssertionDefinitionError(
      'a capability name must start with a letter and use letters, digits and _ . : - (at most 128 characters)',
    );
  }
  return capability;
}

export function checkedAssertionId(id: unknown): string {
  if (!isIdentifier(id))
    throw new AssertionDefinitionError(
      'an assertion id must be 1-200 characters of letters, digits and . _ : / - (starting with a letter or digit)',
    );
  return id;
}
