import { missingMethods } from './missing-methods.js';

/**
 * What a boot check says of the module option `option`, given but not a store of `type`: which of `methods` (every
 * method Verdict calls on such a store) it lacks, as "`budgets` is not a BudgetStore (no reserve, commit method)";
 * `null` when it has them all. `null` and `{}` from a `forRootAsync` factory lack every one.
 */
export function notAStore(value: unknown, option: string, type: string, methods: readonly string[]): string | null {
  const missing = missingMethods(value, methods);
  if (missing.length === 0) return null;
  return `\`${option}\` is not ${/^[AEIOU]/.test(type) ? 'an' : 'a'} ${type} (no ${missing.join(', ')} method)`;
}
