import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { parseReleasePath } from '../context-release/release-path.js';
import { isTrust } from '../context-release/trust.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { VerdictError } from '../errors/verdict.error.js';
import type { ProvenanceStageOptions } from './provenance-stage-options.interface.js';
import { isDerivedFromTrusted } from './derived-from-trusted.js';
import { provenanceCanConfirm } from './provenance-can-confirm.js';
import { assertRulesCanSeeCandidates } from './provenance-candidate-schema.js';
import { isProvenanceRule, ProvenanceRule } from './provenance-rule.js';
import { isResultFormat } from './result-provenance.js';
import { assertTaintConfigured } from './taint/taint-configuration.js';
import { approvalStoreProblem } from '../approvals/confirmation-configuration.js';
import { isShadowedArgumentRule } from './shadowed-argument-rule.js';
import { notAStore } from '../shared/not-a-store.js';
import { assertOptionalBoolean, isOptionalBoolean } from '../shared/optional-boolean.js';
import { PROVENANCE_CONTENT_STORE_METHODS } from './provenance-content-store.interface.js';

/**
 * Boot-time checks of a capability's provenance policy (an object when given: `assertGatesConfigured` refuses any
 * other value first): known rules, parseable paths, no argument rule on a value that can never be a candidate, and an
 * approval receipt store wherever provenance can require confirmation (a rule says so, a declared destination takes
 * the positive rule, or strict mode covers the capability). The module's own `provenance` is checked once per boot,
 * capability or none ({@link assertProvenanceOptions}).
 */
export function assertProvenanceConfigured(
  definition: CapabilityDefinition,
  options: ProvenanceStageOptions,
  fail: (message: string) => void,
): void {
  const policy = definition.provenance;
  if (!isOptionalBoolean(definition.consequential)) fail('has a `consequential` that is not a boolean.');
  if (policy?.untrustedContext !== undefined) {
    const declared: unknown = policy.untrustedContext;
    const rule = isShadowedArgumentRule(declared) ? declared.rule : declared;
    if (rule === ProvenanceRule.TrustedOnly || !isProvenanceRule(rule))
      fail(
        "has a provenance untrustedContext rule that is not 'allow', 'require_confirmation', 'deny' or { rule: <one of those>, enforce: boolean }.",
      );
  }
  for (const [path, declared] of Object.entries(policy?.arguments ?? {})) {
    checkPath(path, 'provenance argument', fail);
    const rule = isShadowedArgumentRule(declared) ? declared.rule : declared;
    if (!isDerivedFromTrusted(rule) && !isProvenanceRule(rule))
      fail(
        `has a provenance rule for argument "${path}" that is not 'allow', 'require_confirmation', 'deny', 'trusted_only', { derivedFrom: 'trusted', otherwise?: 'deny' | 'require_confirmation' } or { rule: <one of those>, enforce: boolean }.`,
      );
  }
  const destinations: unknown = policy?.destinations;
  if (destinations !== undefined) {
    if (!Array.isArray(destinations) || destinations.some((path) => typeof path !== 'string'))
      fail('has provenance destinations that are not an array of argument paths.');
    else for (const path of destinations as string[]) checkPath(path, 'provenance destination', fail);
  }
  if (policy?.trustedValues !== undefined && typeof policy.trustedValues !== 'function')
    fail('has a provenance trustedValues that is not a function ({ arguments, context }) => values.');
  for (const name of ['subject', 'describe'] as const) {
    if (policy?.[name] === undefined) continue;
    if (typeof policy[name] !== 'function') fail(`has a provenance ${name} that is not a function (envelope, target).`);
    // One place says who may approve and what they read: the capability's own confirmation, when it has one.
    else if (definition.requiresConfirmation !== undefined)
      fail(
        `has a provenance ${name} and its own requiresConfirmation: its receipts take requiresConfirmation's ${name}; declare it there only.`,
      );
  }
  assertRulesCanSeeCandidates(definition, fail);
  const results = policy?.results;
  if (results !== undefined) {
    for (const path of Object.keys(results.paths ?? {})) checkPath(path, 'result provenance', fail);
    for (const label of [results, ...Object.values(results.paths ?? {})])
      if (!isTrust(label.trust))
        fail('declares result provenance without a trust level (Trust.Trusted or Trust.Untrusted).');
    if (results.format !== undefined && !isResultFormat(results.format))
      fail("declares a results format that is not 'json' or 'yaml'.");
    for (const [path, label] of Object.entries(results.paths ?? {}))
      if (label.when !== undefined && typeof label.when !== 'function')
        fail(`has a result provenance path "${path}" whose \`when\` is not a function of the row.`);
  }
  // A rule in shadow mode, or a capability in shadow mode, never asks for confirmation: it needs no receipt store.
  const receipts = provenanceCanConfirm(definition, options.provenance) ? approvalStoreProblem(options) : null;
  if (receipts !== null) fail(`can require confirmation because of provenance, but ${receipts}`);
}

/**
 * Boot-time checks of the module's `provenance`, once per boot whether or not a capability is registered (the
 * quarantine and the provenance trackers use its ledger, the approval routes its content store): an object when
 * given (`null` is refused, not read as left out); its `strict`, a boolean when given (a `'true'` from the
 * environment would silently turn strict mode off); `provenance.taint`, which every capability's agent proposals go
 * through (`assertTaintConfigured`); `provenance.ledger`, which every labelled result is appended to; and
 * `provenance.contents`, which keeps parked windows' texts for approvers.
 *
 * @throws VerdictConfigurationError naming the option.
 */
export function assertProvenanceOptions(options: ProvenanceStageOptions): void {
  // Only `undefined` is "not given": a `null` from a `forRootAsync` factory would otherwise read as no options at all.
  const given: unknown = options.provenance;
  if (given !== undefined && (typeof given !== 'object' || given === null))
    throw new VerdictConfigurationError(
      `\`provenance\` is ${given === null ? 'null' : `a ${typeof given}`}, not an object: pass provenance: { strict, ledger, taint }, or leave it out.`,
      { option: 'provenance' },
    );
  assertOptionalBoolean(options.provenance?.strict, 'provenance.strict', "strict: process.env.X === 'true'");
  if (options.provenance?.taint !== undefined) assertTaintConfigured(options.provenance.taint);
  const stores = [
    ['ledger', 'ProvenanceLedger', ['append'], 'new TypeOrmProvenanceLedger(dataSource)'],
    [
      'contents',
      'ProvenanceContentStore',
      PROVENANCE_CONTENT_STORE_METHODS,
      'new TypeOrmProvenanceContentStore(dataSource)',
    ],
  ] as const;
  for (const [key, type, methods, example] of stores) {
    const store = options.provenance?.[key];
    const problem = store === undefined ? null : notAStore(store, `provenance.${key}`, type, methods);
    if (problem !== null)
      throw new VerdictConfigurationError(`${problem}: pass provenance: { ${key}: ${example} }, or leave it out.`, {
        option: `provenance.${key}`,
      });
  }
}

function checkPath(path: string, role: string, fail: (message: string) => void): void {
  try {
    parseReleasePath(path, role);
  } catch (error) {
    if (!(error instanceof VerdictError)) throw error;
    fail(`has a ${role} path that is not a dot path: ${error.message}`);
  }
}
