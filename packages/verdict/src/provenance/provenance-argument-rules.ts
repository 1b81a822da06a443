import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { type ReleasePath, coversPath, parseReleasePath } from '../context-release/release-path.js';
import { DESTINATION_RULE } from './derived-from-trusted.js';
import type { ArgumentProvenanceRule } from './provenance-policy.js';

/** An argument rule of a capability's policy, with its parsed path. */
export interface DeclaredArgumentRule {
  readonly path: string;
  readonly pattern: ReleasePath;
  readonly rule: ArgumentProvenanceRule;
}

/**
 * The argument rules a capability's policy declares: its `arguments`, and for every declared destination without
 * an explicit rule (no `arguments` path covers it), the positive rule (`DESTINATION_RULE`).
 */
export function declaredArgumentRules(definition: CapabilityDefinition): readonly DeclaredArgumentRule[] {
  const policy = definition.provenance;
  const explicit = Object.entries(policy?.arguments ?? {}).map(([path, rule]) => ({
    path,
    pattern: parseReleasePath(path, 'provenance argument'),
    rule,
  }));
  const destinations = (policy?.destinations ?? [])
    .map((path) => ({ path, pattern: parseReleasePath(path, 'provenance destination'), rule: DESTINATION_RULE }))
    .filter(({ pattern }) => !explicit.some((declared) => coversPath(declared.pattern, pattern.segments)));
  return [...explicit, ...destinations];
}
