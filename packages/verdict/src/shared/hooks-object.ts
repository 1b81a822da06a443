import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { assertOptionalFunction } from './optional-function.js';

/** Whether a hook of a hooks option must be given, or has a default. */
export type HookPresence = 'required' | 'optional';

/**
 * Boot check of a module option that is an object of hooks (`approvalEndpoint`, `reviewEndpoint`), when given: an
 * object (a literal or an instance), each of whose `required` hooks is a function, and each of whose `optional` ones
 * is a function when given. A `null`, a string or a `{}` from a `forRootAsync` factory would otherwise boot, then fail
 * every request of the routes it serves with a `TypeError` (`undefined` is the only "not given").
 *
 * @param hooks each hook of the option's interface, with whether it is required (listed next to the interface).
 * @param example how the option is written with its required hooks, e.g. `approvalEndpoint: { approver, … }`.
 * @throws VerdictConfigurationError naming the option, or the hook at fault (`approvalEndpoint.approver`).
 */
export function assertHooks(
  value: unknown,
  option: string,
  hooks: Readonly<Record<string, HookPresence>>,
  example: string,
): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null)
    throw new VerdictConfigurationError(
      `\`${option}\` is ${value === null ? 'null' : `a ${typeof value}`}, not an object of hooks: pass ${example}, or leave it out.`,
      { option },
    );
  const given = value as Record<string, unknown>;
  for (const [name, presence] of Object.entries(hooks)) {
    const hook = `${option}.${name}`;
    if (presence === 'optional') assertOptionalFunction(given[name], hook, `${option}: { ${name}: (…) => … }`);
    else if (typeof given[name] !== 'function')
      throw new VerdictConfigurationError(
        `\`${hook}\` is ${given[name] === undefined ? 'missing' : 'not a function'}: it is a required hook of ${example}.`,
        { option: hook },
      );
  }
}
