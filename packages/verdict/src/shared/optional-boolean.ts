import { VerdictConfigurationError } from '../errors/configuration.error.js';

/**
 * Whether `value` is `true`, `false` or left out (`undefined`, the only "not given"). A `'false'` read from the
 * environment is a non-empty string: read as "not `false`" or as truthy, it would turn on what it meant to turn off.
 */
export function isOptionalBoolean(value: unknown): value is boolean | undefined {
  return value === undefined || typeof value === 'boolean';
}

/**
 * Boot check of a module option that is `true` or `false` when given (`provenance.strict`, `review.work`): anything
 * else, `null` and the strings `'true'` and `'false'` included, is refused.
 *
 * @throws VerdictConfigurationError naming the option and how to parse a value read from the environment.
 */
export function assertOptionalBoolean(value: unknown, option: string, example: string): void {
  if (!isOptionalBoolean(value))
    throw new VerdictConfigurationError(
      `${option} must be true or false, not ${typeof value === 'string' ? `'${value}'` : String(value)}: a value read from the environment is a string, so parse it (${example}).`,
      { option },
    );
}
