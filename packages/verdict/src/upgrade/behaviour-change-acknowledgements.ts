import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { BehaviourChangeOptions } from './behaviour-change-options.interface.js';

/**
 * The module options that acknowledge a behaviour change, each with the only value it takes (ADR 0070): setting
 * one states the new behaviour, so any other value would claim a behaviour Verdict does not have.
 */
export const BEHAVIOUR_CHANGE_ACKNOWLEDGEMENTS = {
  'provenance.unobserved': 'influenced',
  'provenance.unlabelledHistory': 'untrusted',
} as const;

/**
 * Boot check of the acknowledgement options: unset, or their only value. The types say so, but a value from
 * configuration files, the environment or an `as` cast reaches the module unchecked, and a misspelt one
 * (`'influence'`, `'trusted'`) would silence the warning it was meant to answer without meaning anything.
 *
 * @throws VerdictConfigurationError naming the option and its value, before anything starts.
 */
export function assertBehaviourChangeAcknowledgements(options: BehaviourChangeOptions): void {
  const given: Record<string, unknown> = {
    'provenance.unobserved': options.provenance?.unobserved,
    'provenance.unlabelledHistory': options.provenance?.unlabelledHistory,
  };
  for (const [option, value] of Object.entries(BEHAVIOUR_CHANGE_ACKNOWLEDGEMENTS)) {
    const setting = given[option];
    if (setting !== undefined && setting !== value)
      throw new VerdictConfigurationError(
        `${option} takes only '${value}', which acknowledges the behaviour it names, not ${spelled(setting)}: ` +
          `set it to '${value}' or leave it unset (docs/upgrading.md, ADR 0070).`,
        { option },
      );
  }
}

function spelled(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : `${typeof value} ${String(value)}`;
}
