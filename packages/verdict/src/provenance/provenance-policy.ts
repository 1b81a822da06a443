import type { ActionContext, AnyActionContext } from '../context/action-context.js';
import type { JsonObject } from '../fingerprints/json-value.js';
import type { Envelope } from '../vocabulary/envelope.js';
import type { DerivedFromTrusted } from './derived-from-trusted.js';
import type { ProvenanceLedger } from './provenance-ledger.interface.js';
import type { ProvenanceContentStore } from './provenance-content-store.interface.js';
import type { ProvenanceRule } from './provenance-rule.js';
import type { ResultProvenance } from './result-provenance.js';
import type { ShadowedArgumentRule } from './shadowed-argument-rule.js';
import type { TaintOptions } from './taint/taint-options.js';

/**
 * The rules an argument may take: the positive rule (`{ derivedFrom: 'trusted' }`: the value must be derived
 * from trusted content), or a rule for a value found in untrusted content (`trusted_only` refuses it); either one
 * may run in shadow mode as `{ rule, enforce: false }` (docs/shadow-mode.md).
 */
export type ArgumentProvenanceRule = ProvenanceRule | DerivedFromTrusted | ShadowedArgumentRule;

/**
 * The rule for a call proposed in a window that held untrusted content: `allow`, `require_confirmation` or `deny`,
 * or one of them in shadow mode as `{ rule, enforce: false }` (docs/shadow-mode.md).
 */
export type ContextProvenanceRule =
  | Exclude<ProvenanceRule, 'trusted_only'>
  | { readonly rule: Exclude<ProvenanceRule, 'trusted_only'>; readonly enforce: boolean };

/** What a `trustedValues` resolver is given: the proposal's validated arguments and its server-side context. */
export interface TrustedValuesInput<TArgs = unknown, TContext extends AnyActionContext = ActionContext> {
  readonly arguments: TArgs;
  readonly context: TContext;
}

/**
 * The application-declared trusted set of a proposal (the actor's saved payees, the account's own IBAN),
 * compared with argument values in canonical form, as trusted content is. Called only when a positive rule's
 * value is not found in trusted content of the window, or, under a plan, any value or record key the plan check
 * reads. A resolver that throws is an application fault.
 *
 * @example trustedValues: async ({ context }) => payees.ibansOf(context.actor.id)
 */
export type TrustedValuesResolver<TArgs = unknown, TContext extends AnyActionContext = ActionContext> = (
  input: TrustedValuesInput<TArgs, TContext>,
) => Iterable<string | number> | Promise<Iterable<string | number>>;

/**
 * A capability's provenance policy (docs/provenance.md): what its results are, and what the provenance stage
 * (step 1a) does when untrusted content influenced one of its proposals. The most severe finding decides:
 * `deny`/`trusted_only` > `require_confirmation` > `allow`.
 *
 * `TArgs` is the capability's arguments type where the policy is declared on a capability (it types
 * `trustedValues`), `TTarget` its target's (it types `subject` and `describe`); a `ProvenancePolicy` without
 * parameters fits any capability.
 *
 * @example
 * provenance: { destinations: ['recipient'], arguments: { recipient: { derivedFrom: 'trusted' } } }
 */
export interface ProvenancePolicy<TArgs = unknown, TContext extends AnyActionContext = ActionContext, TTarget = any> {
  /** What this capability's results are, whole or per path. Default: untrusted. */
  readonly results?: ResultProvenance;
  /**
   * When untrusted content was in the context window that proposed the call (sound and coarse). Default:
   * `allow`, or `require_confirmation` for a consequential capability under the module's strict mode.
   */
  readonly untrustedContext?: ContextProvenanceRule;
  /**
   * Per argument path (dot paths with `*`, covering their subtree). The positive rule
   * `{ derivedFrom: 'trusted', otherwise }` applies to every value under the path; the other rules apply when the
   * argument's value occurs in untrusted content and in no trusted content, and always in a window Verdict did not
   * observe (unobserved means influenced). Paths not named: `allow`, or `require_confirmation` for a consequential
   * capability under strict mode; a declared destination takes the positive rule.
   */
  readonly arguments?: Readonly<Record<string, ArgumentProvenanceRule>>;
  /**
   * The argument paths that are destinations: recipients, e-mail addresses, phone numbers, URLs, hosts,
   * passwords. A destination without an explicit `arguments` rule takes the positive rule with
   * `otherwise: 'require_confirmation'` (ADR 0038). Default: none.
   */
  readonly destinations?: readonly string[];
  /** The application-declared trusted set for the positive rule. Default: none (trusted content only). */
  readonly trustedValues?: TrustedValuesResolver<TArgs, TContext>;
  /** Shown to the approver before the provenance summary when this policy asks for confirmation. */
  readonly reason?: string;
  /**
   * The facts an approver's CASL ability is checked against (the subject `'Approval'`, with `capability` added)
   * when this policy asks for confirmation and the capability declares no `requiresConfirmation` of its own: built
   * from the resolved target, as `requiresConfirmation`'s `subject` is (ADR 0114). Without it such a receipt's
   * subject is `null`, and only an ability that can `approve` every `'Approval'` of the capability can approve it.
   * Plain JSON values only, checked as `requiresConfirmation`'s are (`$.subject…`, ADR 0201).
   * @example subject: (_envelope, order) => ({ customerId: order.customerId, tenantId: order.tenantId })
   */
  readonly subject?: (envelope: Envelope<TArgs, TContext>, target: TTarget) => JsonObject;
  /**
   * What the approver is approving, built from the resolved target (never model-written text), for the same
   * receipts as `subject`. Default: none (`description: null`).
   */
  readonly describe?: (envelope: Envelope<TArgs, TContext>, target: TTarget) => string;
}

/** Module-wide provenance options (the module option `provenance`). */
export interface ProvenanceOptions {
  /**
   * Strict mode: every consequential capability (`consequential`, default its `mutates`) under untrusted
   * influence needs confirmation, unless its policy says otherwise. Default: `false`.
   */
  readonly strict?: boolean;
  /** Where provenance records go (labels, fingerprints, derivation edges). Default: none kept. */
  readonly ledger?: ProvenanceLedger;
  /**
   * The taint ledger: the values of calls proposed under untrusted influence stay tainted when a result (a
   * note, a row, a file) brings them back, in any process sharing it. Every capability's agent proposals are
   * then looked up (one statement each). Default: none (a laundered value is trusted content).
   *
   * @example taint: { ledger: new TypeOrmTaintLedger(dataSource), retentionDays: 90 }
   */
  readonly taint?: TaintOptions;
  /**
   * Where the untrusted texts of parked calls' windows are kept for approvers and reviewers (ADR 0042); share one
   * (`TypeOrmProvenanceContentStore`) when another process may decide the call. Default: this process's memory.
   */
  readonly contents?: ProvenanceContentStore;
  /**
   * What a window Verdict did not observe means: `'influenced'`, the only value (ADR 0039). A bound or guarded
   * tool's call made without the provenance tracker has every argument rule applied as if its argument were
   * influenced. Setting it acknowledges the change and silences its boot warning and `verdict validate` finding
   * once every agent that proposes capabilities with argument rules has a tracker. Default: unset (`'influenced'`).
   */
  readonly unobserved?: 'influenced';
  /**
   * What a human message of the history that the module never labelled is: `'untrusted'`, the only value
   * (`unobserved:history`, ADR 0041). Setting it acknowledges the change and silences its boot warning and
   * `verdict validate` finding once earlier turns are released with `guard.contextMessage` or labelled with
   * `tracker.label`. Default: unset (`'untrusted'`).
   */
  readonly unlabelledHistory?: 'untrusted';
}
