import type { Destination } from './destination.js';
import type { Source } from './source.js';

/**
 * The exact key of a source → destination route: `kind:name->connection@zone`. Unambiguous because
 * identifiers contain no `:`, `>` or `@`: the first `>` ends the source.
 */
export function routeKey(source: Source, destination: Destination): string {
  return `${source.toString()}->${destination.toString()}`;
}
