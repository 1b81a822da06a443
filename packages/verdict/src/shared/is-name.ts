/**
 * A non-blank string: what a configured name or internal reason must be (a rate limit's or spend budget's `name` and
 * `reason`, a confirmation's `reason`). Anything else is refused at boot (`VerdictConfigurationError`): a blank reason
 * would be recorded as an empty one, a blank name would share one window with every other blank name.
 */
export const isName = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
