import { fingerprintString } from '@verdict/nestjs';
import type { RecordedEffect } from './recorded-effect.js';

/** Returns a trace-supplied label unchanged, or `sha256:<hex>` of it when it contains a resource or destination value. */
export type Redactor = (label: string) => string;

/** A {@link Redactor} over every resource and destination value of `effects`. */
export function redactorFor(effects: readonly RecordedEffect[]): Redactor {
  const secrets = new Set<string>();
  for (const { effect } of effects) {
    for (const value of [effect.resource, effect.destination]) {
      if (typeof value !== 'string') continue;
      if (value !== '') secrets.add(value);
      if (value.trim() !== '') secrets.add(value.trim());
    }
  }
  const values = [...secrets];
  return (label) => (values.some((value) => label.includes(value)) ? `sha256:${fingerprintString(label)}` : label);
}
