import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { type ReleasePath, coversPath, parseReleasePath } from '../context-release/release-path.js';
import { DESTINATION_RULE } from './derived-from-trusted.js';
import type { DerivedFromTrusted } from './derived-from-trusted.js';
import type { ProvenanceRule } from './provenance-rule.js';
import { isShadowedArgumentRule } from './shadowed-argument-rule.js';

/** An argument rule of a capability's policy, with its parsed path and whether it is enforced. */
export interface DeclaredArgumentRule {
  readonly path: string;
  readonly pattern: ReleasePath;
  readonly rule: ProvenanceRule | DerivedFromTrusted;
  /** `false` for a rule declared `{ rule, enforce: false }` (shadow mode, docs/shadow-mode.md). */
  readonly enforced: boolean;
}

/**
 * The argument rules a capability's policy declares: its `arguments`, and for every declared destination without
 * an enforced explicit rule (no enforced `arguments` path covers it), the positive rule (`DESTINATION_RULE`).
 */
export function declaredArgumentRules(definition: CapabilityDefinition): readonly DeclaredArgumentRule[] {
  const policy = definition.provenance;
  const explicit = Object.entries(policy?.arguments ?? {}).map(([path, declared]) => ({
    path,
    pattern: parseReleasePath(path, 'provenance argument'),
    rule: isShadowedArgumentRule(declared) ? declared.rule : declared,
    enforced: !isShadowedArgumentRule(declared) || declared.enforce,
  }));
  const destinations = (policy?.destinations ?? [])
    .map((path) => ({
      path,
      pattern: parseReleasePath(path, 'provenance destination'),
      rule: DESTINATION_RULE,
      enforced: true,
    }))
    // Only an enforced rule replaces a destination's: one in shadow mode never weakens it (ADR 0098).
    .filter(
      ({ pattern }) =>
        !explicit.some((declared) => declared.enforced && coversPath(declared.pattern, pattern.segments)),
    );
  return [...explicit, ...destinations];
}
