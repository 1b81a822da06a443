import { VerdictConfigurationError } from '../errors/configuration.error.js';

/**
 * Boot check of an option that is a function when given (`actorKey`, `review.actorKey`, `clock`): anything else
 * given, `null` included, is refused. Else a string would boot and fail every call with a `TypeError`, and a key that
 * is `null` would stand for "no key" where a boot check counted it as one (`undefined` is the only "not given").
 *
 * @throws VerdictConfigurationError naming the option and how it is written.
 */
export function assertOptionalFunction(value: unknown, option: string, example: string): void {
  if (value !== undefined && typeof value !== 'function')
    throw new VerdictConfigurationError(
      `\`${option}\` is ${value === null ? 'null' : typeof value === 'object' ? 'an object' : `a ${typeof value}`}, not a function: pass ${example}, or leave it out.`,
      { option },
    );
}
