import { randomUUID } from 'node:crypto';
import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { WILDCARD, coversPath } from '../context-release/release-path.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { Decision } from '../decisions/decision.js';
import { Disposition } from '../decisions/disposition.js';
import { Stage } from '../decisions/stage.js';
import type { EvidenceTrail } from '../evidence/evidence-trail.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { UntrustedInfluenceDetected } from '../events/untrusted-influence-detected.event.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import type { Envelope } from '../vocabulary/envelope.js';
import type { ActorKey } from '../context/actor-key.js';
import { type ApproverProvenance, approverProvenance } from './approver-provenance.js';
import { isDerivedFromTrusted, otherwiseOf } from './derived-from-trusted.js';
import type { InfluenceReport } from './influence-report.js';
import { type DeclaredArgumentRule, declaredArgumentRules } from './provenance-argument-rules.js';
import { isStrict, provenanceApplies } from './provenance-applicability.js';
import { provenanceConfirmation } from './provenance-confirmation.js';
import type { ProvenanceOptions } from './provenance-policy.js';
import { type ProvenanceRecord, ProvenanceRecordKind } from './provenance-record.js';
import { ProvenanceRule, severityOf } from './provenance-rule.js';
import { declaredContextRule } from './declared-context-rule.js';
import { currentProvenanceWindow } from './provenance-scope.js';
import { provenanceSummary } from './provenance-summary.js';
import { ProvenanceWindow } from './provenance-window.js';
import type { ProvenanceLabel } from './provenance-label.js';
import { analyzeInfluence } from './analyze-influence.js';
import { analyzeWithTaint } from './taint/taint.gate.js';
import { type PlanInForce, currentPlan } from '../plans/plan.js';
import { type PlanRefusal, type RecordKey, planRefusal, recordKeys } from '../plans/plan-check.js';

/** An array index in an argument path: no key the model wrote (when what it indexes is an array). */
const ARRAY_INDEX = /^\d+$/;

/** What the provenance stage needs from the pipeline. */
export interface ProvenanceStageInput {
  readonly definition: CapabilityDefinition;
  readonly envelope: Envelope;
  readonly toolKind: ToolKind;
  readonly options: ProvenanceOptions | undefined;
  readonly trail: EvidenceTrail;
  readonly now: Date;
  readonly emit: (event: UntrustedInfluenceDetected) => void;
  /** The module's `actorKey`: the key a provenance receipt binds the actor by. */
  readonly actorKey?: ActorKey;
  /**
   * A dry run (`evaluate`): the stage decides and records its decision as evidence (as every dry run does),
   * but appends nothing to the provenance ledger and raises no event.
   */
  readonly dryRun: boolean;
}

/** What the provenance stage hands the later steps when it does not deny. */
export interface ProvenanceAssessment {
  /** The capability's definition, or one whose `requiresConfirmation` carries the provenance summary. */
  readonly definition: CapabilityDefinition;
  /** What an approver or reviewer is shown about the proposal's provenance; `null` when the stage did not run. */
  readonly approver: ApproverProvenance | null;
  /** The window the proposal was analysed in (its untrusted texts are kept for approvers); `null` likewise. */
  readonly window: ProvenanceWindow | null;
  /**
   * Shadow mode (docs/shadow-mode.md): the refusal a policy or rule declared `enforce: false` would have made, recorded
   * as `would_deny` / `would_confirm`; absent when there is none.
   */
  readonly shadowed?: Decision;
}

/**
 * Step 1a: influence analysis of the validated arguments and the proposal's context window, then the
 * capability's provenance policy. Answers the definition the later steps use — the capability's own, or, when
 * the policy requires confirmation, one whose `requiresConfirmation` carries the provenance summary — with what
 * an approver is shown of the proposal's provenance, or the recorded `deny` that stops the run. Capabilities
 * without rules (and outside strict mode) skip the stage. A dry run's analysis leaves no ledger record and
 * raises no event: only its decision record.
 */
export function assessProvenance(
  input: ProvenanceStageInput,
): ProvenanceAssessment | Decision | Promise<ProvenanceAssessment | Decision> {
  const { definition, options } = input;
  // Without a policy or context window the stage has nothing to do: answered at once, nothing awaited.
  // Plan mode (docs/quarantine.md, "Plans") checks every proposal made under it, with or without a policy.
  if (!provenanceApplies(definition, options) && currentPlan() === undefined)
    return { definition, approver: null, window: null };
  return assessApplicable(input);
}

/** {@link assessProvenance} for a capability its policy applies to. */
async function assessApplicable(input: ProvenanceStageInput): Promise<ProvenanceAssessment | Decision> {
  const { definition, envelope, toolKind, options, trail } = input;
  const { window, ownRequest } = windowOf(toolKind);
  const declared = declaredArgumentRules(definition);
  const plan = currentPlan();
  // Plan mode reads record keys as values (docs/quarantine.md, "Plans"): analysed with the values, as they are.
  const keys = plan === undefined ? [] : recordKeys(definition, envelope.arguments);
  const analysis = (tainted: ReadonlySet<string>) =>
    analyze(window, envelope, definition, declared, { ownRequest, tainted, plan, keys });
  const keyValues = keys.map(({ key }) => key);
  const { report, outsidePlan } = await analyzeWithTaint({ ...input, window, ownRequest, keys: keyValues }, analysis);
  if (outsidePlan !== undefined) {
    const refused = Decision.deny(Stage.Provenance, outsidePlan.reason);
    trail.record(refused);
    return refused;
  }
  const found = ruleFor(report, declared, definition, options);
  const { notDerived } = found;
  const summary = provenanceSummary(report, notDerived);
  const influenced = report.untrustedContext || report.arguments.length > 0;
  if (influenced && !input.dryRun)
    await options?.ledger?.append(influenceRecords(report, definition.name, envelope.id, input.now));
  // Shadow mode (ADR 0098): a capability declared `enforce: false` enforces none of its rules; otherwise the rules
  // declared `enforce: false` are shadowed where they are more severe than the enforced ones.
  const rule = definition.enforce === false ? ProvenanceRule.Allow : found.enforced;
  let shadowed: Decision | undefined;
  if (severityOf(found.all) > severityOf(rule)) {
    shadowed = decisionOf(found.all, toolKind, summary);
    trail.record(shadowed);
    trail.shade(shadowed);
  }
  const decision = decisionOf(rule, toolKind, summary);
  trail.record(decision);
  if (influenced && !input.dryRun)
    input.emit(
      new UntrustedInfluenceDetected(
        definition.name,
        envelope.id,
        report.untrustedSources,
        report.arguments.map(({ path, sources }) => ({ path, sources })),
        decision.disposition,
      ),
    );
  if (decision.disposition === Disposition.Deny) return decision;
  const approver = approverProvenance(report, window, notDerived);
  if (decision.disposition === Disposition.Permit) return { definition, approver, window, shadowed };
  const reason = definition.provenance?.reason === undefined ? summary : `${definition.provenance.reason} ${summary}`;
  const confirmed = { ...definition, requiresConfirmation: provenanceConfirmation(definition, reason, input.actorKey) };
  return { definition: confirmed, approver, window, shadowed };
}

/** The stage's decision for `rule`: a guarded tool cannot carry confirmation, so there it is a deny. */
function decisionOf(rule: ProvenanceRule, toolKind: ToolKind, summary: string): Decision {
  if (rule === ProvenanceRule.Allow) return Decision.permit(Stage.Provenance, `provenance: ${summary}`);
  if (rule === ProvenanceRule.RequireConfirmation && toolKind !== ToolKind.Guarded)
    return Decision.of(Disposition.RequireConfirmation, Stage.Provenance, `provenance: ${summary}`);
  return Decision.deny(
    Stage.Provenance,
    rule === ProvenanceRule.RequireConfirmation
      ? `provenance requires confirmation, which a guarded tool cannot carry: ${summary}`
      : `provenance: ${summary}`,
  );
}

/**
 * The tool kinds whose proposal, without a window, is not an agent's: application code calling
 * `VerdictService.execute` or `enqueue` (the principal's own request), and a worker's deferred run of an approved
 * review item (its arguments were analysed when it was parked, shown to the reviewer, and the reviewed binding
 * refuses any others). Every other kind — bound, guarded, MCP, a dry run, and any kind added later — is
 * unobserved without a window: it fails closed (ADR 0082).
 */
const OWN_REQUEST_KINDS: ReadonlySet<ToolKind> = new Set<ToolKind>([ToolKind.Service, ToolKind.Deferred]);

/**
 * The window of this proposal. Without one, a proposal of an own-request kind ({@link OWN_REQUEST_KINDS}) is the
 * principal's own request, whose values count as derived from trusted content; any other is unobserved
 * (untrusted context, and every argument rule applies as if its argument were influenced).
 */
function windowOf(toolKind: ToolKind): { window: ProvenanceWindow; ownRequest: boolean } {
  const window = currentProvenanceWindow();
  if (window !== undefined) return { window, ownRequest: false };
  return OWN_REQUEST_KINDS.has(toolKind)
    ? { window: ProvenanceWindow.of([]), ownRequest: true }
    : { window: ProvenanceWindow.unobserved(), ownRequest: false };
}

/** The influence analysis of a proposal, and the plan check of it. */
interface Analysis {
  /** The analysis of the proposal's values, as `analyzeInfluence` answers it (the taint gate reads it). */
  readonly values: InfluenceReport;
  /** `values` with the paths the capability's policy does not name fingerprinted ({@link withTrustedPaths}). */
  readonly report: InfluenceReport;
  /** Why the proposal is outside the plan in force (`planRefusal`); `undefined` within it, or with no plan. */
  readonly outsidePlan: PlanRefusal | undefined;
}

/**
 * Influence analysis of the proposal's values and, under a plan, of its record keys, then the plan check. The
 * policy's trusted set (`trustedValues`) is resolved only where it can change the outcome, and then both analyses
 * are repeated with it (and the plan check with them): when a positive rule's value is not found in trusted content,
 * or when the plan check refuses a value or record key of the analysis without it (one the trusted set holds would
 * be derived). A call the plan permits as it is — a computed amount in a window with no untrusted content — or
 * refuses whatever its values (no plan accepted, a capability in no step) calls the resolver only for a positive rule.
 */
async function analyze(
  window: ProvenanceWindow,
  envelope: Envelope,
  definition: CapabilityDefinition,
  declared: readonly DeclaredArgumentRule[],
  options: {
    readonly ownRequest: boolean;
    readonly tainted: ReadonlySet<string>;
    /** The plan in force (`currentPlan`): `undefined` outside plan mode. */
    readonly plan: PlanInForce | null | undefined;
    /** The record keys the plan check reads (none outside plan mode). */
    readonly keys: readonly RecordKey[];
  },
): Promise<Analysis> {
  const { ownRequest, tainted, plan, keys } = options;
  const keyValues = keys.map(({ key }) => key);
  const analysis = (trustedValues?: Iterable<string | number>): Analysis => {
    const values = analyzeInfluence(window, envelope.arguments, { ownRequest, trustedValues, tainted });
    const report = withTrustedPaths(values, declared, envelope.arguments);
    if (plan === undefined) return { values, report, outsidePlan: undefined };
    // No record keys written: nothing more to read in the window.
    const keysReport =
      keyValues.length === 0
        ? { ...values, arguments: [], derivation: [] }
        : analyzeInfluence(window, keyValues, { ownRequest, trustedValues, tainted });
    return { values, report, outsidePlan: planRefusal(plan, definition, report, { keys, report: keysReport }) };
  };
  const first = analysis();
  const resolve = definition.provenance?.trustedValues;
  const needed = notDerivedPaths(first.values, declared).length > 0 || first.outsidePlan?.byValue === true;
  if (resolve === undefined || !needed) return first;
  const trustedValues = await resolve({ arguments: envelope.arguments, context: envelope.context });
  if (trustedValues === null || typeof (trustedValues as Iterable<unknown>)[Symbol.iterator] !== 'function')
    throw new VerdictConfigurationError(
      `Capability "${definition.name}": its provenance trustedValues resolver returned something that is not iterable; return an array of strings or numbers.`,
    );
  return analysis(trustedValues);
}

/** The paths of values under a positive rule that are not derived from trusted content. */
function notDerivedPaths(report: InfluenceReport, declared: readonly DeclaredArgumentRule[]): readonly string[] {
  const paths = new Set<string>();
  for (const { pattern, rule } of declared)
    if (isDerivedFromTrusted(rule))
      for (const leaf of report.derivation)
        if (!leaf.derived && coversPath(pattern, leaf.segments)) paths.add(leaf.path);
  return [...paths];
}

/**
 * The report with every argument path the capability's policy does not name replaced by its fingerprint
 * (`#<sha256 prefix>`): keys of free-form arguments are model-written (a record keyed by IBAN, or by a card number),
 * and a path reaches evidence, events and the approver's summary. A path is named when a declared pattern (arguments,
 * destinations) spells each of its keys — the application's own names — and any other segment indexes an array.
 */
function withTrustedPaths(
  report: InfluenceReport,
  declared: readonly DeclaredArgumentRule[],
  args: unknown,
): InfluenceReport {
  const named = (pattern: DeclaredArgumentRule['pattern'], segments: readonly string[]) => {
    if (!coversPath(pattern, segments)) return false;
    let value = args;
    for (const [i, segment] of segments.entries()) {
      const spelled = (pattern.segments[i] ?? WILDCARD) !== WILDCARD;
      if (!spelled && !(Array.isArray(value) && ARRAY_INDEX.test(segment))) return false;
      value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[segment] : undefined;
    }
    return true;
  };
  const shown = <T extends { path: string; segments: readonly string[] }>(item: T): T =>
    declared.some(({ pattern }) => named(pattern, item.segments))
      ? item
      : { ...item, path: `#${fingerprintString(item.path).slice(0, 16)}` };
  return { ...report, arguments: report.arguments.map(shown), derivation: report.derivation.map(shown) };
}

/**
 * The most severe rule among the findings — of the enforced rules, and of all of them (with those in shadow mode):
 * the context rule when untrusted content was in the window; per influenced argument its rules (or the fallback when
 * no enforced rule covers it); per positive rule, its `otherwise` for a value not derived from trusted content; and in an
 * unobserved window every other argument rule of an argument present, as if it were influenced.
 */
function ruleFor(
  report: InfluenceReport,
  declared: readonly DeclaredArgumentRule[],
  definition: CapabilityDefinition,
  options: ProvenanceOptions | undefined,
): { enforced: ProvenanceRule; all: ProvenanceRule; notDerived: readonly string[] } {
  const fallback = isStrict(definition, options) ? ProvenanceRule.RequireConfirmation : ProvenanceRule.Allow;
  const rules: ProvenanceRule[] = [];
  const shadowed: ProvenanceRule[] = [];
  if (report.untrustedContext) {
    const context = declaredContextRule(definition);
    // A context rule in shadow mode never stands in for the fallback, as an argument rule does not.
    rules.push(context?.enforced === true ? context.rule : fallback);
    if (context?.enforced === false) shadowed.push(context.rule);
  }
  for (const influence of report.arguments) {
    const matching = declared.filter(({ pattern }) => coversPath(pattern, influence.segments));
    // A rule in shadow mode never stands in for the fallback: only an enforced rule replaces it.
    if (!matching.some(({ enforced }) => enforced)) rules.push(fallback);
    for (const { rule, enforced } of matching)
      if (!isDerivedFromTrusted(rule)) (enforced ? rules : shadowed).push(rule);
  }
  for (const { pattern, rule, enforced } of declared) {
    const leaves = report.derivation.filter((leaf) => coversPath(pattern, leaf.segments));
    const found = enforced ? rules : shadowed;
    if (isDerivedFromTrusted(rule)) {
      if (leaves.some((leaf) => !leaf.derived)) found.push(otherwiseOf(rule));
    } else if (!report.observed && leaves.length > 0) found.push(rule);
  }
  const enforced = mostSevere(rules);
  return { enforced, all: mostSevere([enforced, ...shadowed]), notDerived: notDerivedPaths(report, declared) };
}

function mostSevere(rules: readonly ProvenanceRule[]): ProvenanceRule {
  return rules.reduce<ProvenanceRule>(
    (worst, next) => (severityOf(next) > severityOf(worst) ? next : worst),
    ProvenanceRule.Allow,
  );
}

function influenceRecords(
  report: InfluenceReport,
  capability: string,
  correlationId: string,
  recordedAt: Date,
): ProvenanceRecord[] {
  const record = (label: ProvenanceLabel, path: string | null): ProvenanceRecord => ({
    id: randomUUID(),
    kind: ProvenanceRecordKind.Influence,
    contentFingerprint: label.fingerprint,
    sourceKind: label.source.kind,
    sourceName: label.source.name,
    trust: label.trust,
    parentFingerprint: null,
    correlationId,
    capability,
    argumentPathFingerprint: path === null ? null : fingerprintString(path),
    recordedAt,
  });
  return [
    ...report.untrustedSources.map((label) => record(label, null)),
    ...report.arguments.flatMap(({ path, sources }) => sources.map((label) => record(label, path))),
  ];
}
