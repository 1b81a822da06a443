import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { shadowedPolicies } from '../shadow/shadowed-policies.js';
import { FindingCode } from './finding-code.js';
import { Severity } from './severity.js';
import type { WiringFinding } from './wiring-finding.js';

/**
 * One `medium` finding per capability that runs in shadow mode, whole or by some of its provenance rules (ADR 0098):
 * a refusal it declares is recorded and not enforced, so the call it would refuse runs. Not `high`: shadow mode is
 * declared on purpose, records every would-be refusal, and never softens containment, bad input, substitution or
 * duplicates. Not `low`: a forgotten `enforce: false` leaves a policy inert in production, and
 * `verdict validate --fail-on medium` should stop such a release.
 */
export function shadowModeFindings(definitions: readonly CapabilityDefinition[]): WiringFinding[] {
  const { capabilities, rules, contextRules } = shadowedPolicies(definitions);
  const byCapability = capabilities.map((name) => ({
    code: FindingCode.ShadowMode,
    severity: Severity.Medium,
    subject: name,
    message: `Capability "${name}" runs in shadow mode (enforce: false): where CASL, its provenance policy, confirmation, forbidden states, its rate limit or its spend budget would refuse, the refusal is recorded as would_deny / would_confirm and the call runs. Read \`verdict evidence shadow-summary\`, then set enforce: true.`,
  }));
  const named = new Map<string, string[]>();
  for (const { capability, path } of rules) named.set(capability, [...(named.get(capability) ?? []), path]);
  const byRule = [...named].map(([name, paths]) => ({
    code: FindingCode.ShadowMode,
    severity: Severity.Medium,
    subject: name,
    message: `Capability "${name}" has provenance rules in shadow mode for arguments ${paths.map((path) => `"${path}"`).join(', ')}: where they would refuse or ask for confirmation, the call is recorded as would_deny / would_confirm and runs as its enforced rules decide. Read \`verdict evidence shadow-summary\`, then drop enforce: false.`,
  }));
  const byContextRule = contextRules.map((name) => ({
    code: FindingCode.ShadowMode,
    severity: Severity.Medium,
    subject: name,
    message: `Capability "${name}" has its provenance context rule (untrustedContext) in shadow mode: where untrusted content in the window would make it refuse or ask for confirmation, the call is recorded as would_deny / would_confirm and runs as its enforced rules decide. Read \`verdict evidence shadow-summary\`, then drop enforce: false.`,
  }));
  return [...byCapability, ...byRule, ...byContextRule];
}
