import type { JsonValue } from '@verdict/nestjs';

/**
 * How many places in an output contain `needle`: the output itself when it is a string, otherwise every
 * string, number or boolean leaf (as text) and every object key of structured output. `undefined` (no
 * output) contains nothing.
 */
export function occurrencesIn(output: JsonValue | undefined, needle: string): number {
  if (output === undefined || output === null) return 0;
  if (typeof output === 'string') return output.includes(needle) ? 1 : 0;
  if (typeof output === 'number' || typeof output === 'boolean') return String(output).includes(needle) ? 1 : 0;
  let count = 0;
  if (Array.isArray(output)) {
    for (const item of output) count += occurrencesIn(item, needle);
    return count;
  }
  for (const [key, value] of Object.entries(output)) {
    if (key.includes(needle)) count += 1;
    count += occurrencesIn(value, needle);
  }
  return count;
}
