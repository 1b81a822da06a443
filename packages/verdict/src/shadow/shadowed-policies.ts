import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { declaredArgumentRules } from '../provenance/provenance-argument-rules.js';
import { declaredContextRule } from '../provenance/declared-context-rule.js';

/** What runs in shadow mode (docs/shadow-mode.md): whole capabilities, and single provenance rules. */
export interface ShadowedPolicies {
  /** Capabilities declared `enforce: false`. */
  readonly capabilities: readonly string[];
  /** Provenance argument rules declared `{ rule, enforce: false }` on capabilities that are otherwise enforced. */
  readonly rules: readonly { readonly capability: string; readonly path: string }[];
  /** Capabilities, otherwise enforced, whose provenance context rule (`untrustedContext`) is `{ rule, enforce: false }`. */
  readonly contextRules: readonly string[];
}

/** Every capability and provenance rule of `definitions` that runs in shadow mode. */
export function shadowedPolicies(definitions: readonly CapabilityDefinition[]): ShadowedPolicies {
  const capabilities = definitions.filter((definition) => definition.enforce === false).map(({ name }) => name);
  const rules = definitions
    .filter((definition) => definition.enforce !== false && definition.provenance?.arguments !== undefined)
    .flatMap((definition) =>
      declaredArgumentRules(definition)
        .filter(({ enforced }) => !enforced)
        .map(({ path }) => ({ capability: definition.name, path })),
    );
  const contextRules = definitions
    .filter((definition) => definition.enforce !== false && declaredContextRule(definition)?.enforced === false)
    .map(({ name }) => name);
  return { capabilities, rules, contextRules };
}

/** `shadowed` in words for a boot warning or a finding; `null` when nothing runs in shadow mode. */
export function describeShadowedPolicies({ capabilities, rules, contextRules }: ShadowedPolicies): string | null {
  const named = [
    ...capabilities.map((name) => `capability "${name}"`),
    ...rules.map(({ capability, path }) => `provenance rule for argument "${path}" of "${capability}"`),
    ...contextRules.map((name) => `provenance context rule (untrustedContext) of "${name}"`),
  ];
  if (named.length === 0) return null;
  return `Shadow mode: not enforced: ${named.join('; ')}. Where they would refuse, the refusal is recorded as would_deny or would_confirm and the call proceeds (docs/shadow-mode.md); \`verdict evidence shadow-summary\` shows what enforcement would have refused. Set enforce: true once the data says so.`;
}
