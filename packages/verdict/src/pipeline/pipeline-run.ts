import type { EventEmitter2 } from '@nestjs/event-emitter';
import type { ApprovalChallenge } from '../approvals/approval-challenge.js';
import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { proposedToolCallId } from '../capabilities/tool-call-id.js';
import type { ActionContext } from '../context/action-context.js';
import { Decision } from '../decisions/decision.js';
import type { Stage } from '../decisions/stage.js';
import type { SecurityEventEmitter } from '../events/security-event-emitter.js';
import type { EvidenceLevel } from '../evidence/evidence-level.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { evidenceStreamOf } from '../evidence/evidence-stream.js';
import { EvidenceTrail } from '../evidence/evidence-trail.js';
import { reportLateEvidenceFailure } from '../evidence/late-evidence-failure.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import type { DeferredRun } from '../review/review.gate.js';
import type { ToolCallSubject } from '../telemetry/tool-call-span.js';
import type { ProvenanceAssessment } from '../provenance/provenance.stage.js';
import type { ExecutionResult } from '../vocabulary/execution-result.js';
import type { Proposal } from '../vocabulary/proposal.js';
import { recordedCapability } from '../evidence/recorded-capability.js';
import { evidenceId } from '../evidence/evidence-id.js';

/** How a caller invokes the pipeline. */
export interface InvocationOptions {
  /**
   * The caller (a resuming agent, or an application endpoint) explicitly approved this exact tool-call
   * id. Without it an approved receipt is never consumed. "Approve all" decisions do not count.
   */
  readonly explicitApproval?: boolean;
  /**
   * The approval batch a receipt issued by this run joins (docs/approvals.md "Batch approvals", ADR 0102): the id
   * `approvalBatchId` derives for the model turn. Unset: the receipt is asked on its own. Anything but a non-blank
   * string of at most 64 characters (the receipts' `batch_id` column) throws `VerdictConfigurationError` before the
   * run starts.
   */
  readonly approvalBatch?: string;
  /**
   * Whether what the executor threw is the caller's runtime pausing the run (a LangGraph interrupt of a sub-agent the
   * executor runs), not a failure: its execution claim is released, not left `indeterminate`, so that the call run
   * again on resume is admitted (attempt + 1); the signal is rethrown unchanged (ADR 0177), and the call's span is not
   * marked as an error (ADR 0189). A Verdict runtime sets it; a caller of `VerdictService.execute` inside a runtime
   * that pauses by throwing (a LangGraph node: `isGraphInterrupt`) passes its own (ADR 0197);
   * anything but a function throws `VerdictConfigurationError` before the run starts.
   */
  readonly isPause?: (error: unknown) => boolean;
}

/** How a runtime invokes `guard` (the migration bridge). */
export interface GuardOptions {
  /**
   * Whether what the guarded handler threw is the caller's runtime pausing the run (LangGraph's interrupt, raised by
   * the handler or by a sub-agent it runs): the call's span is not marked as an error (`verdict.paused`, ADR 0197).
   * Unlike {@link InvocationOptions.isPause}, it does not release the call's execution claim: a guarded call's claim
   * is left `indeterminate`, as for any throw (ADR 0177). The signal is rethrown unchanged. Anything but a function
   * throws `VerdictConfigurationError` before the run starts.
   */
  readonly isPause?: (error: unknown) => boolean;
}

/** What every run of one pipeline shares: where its evidence goes, its clock, and who observes its outcome. */
export interface PipelineRunSetting {
  readonly evidence: EvidenceRecorder;
  readonly clock: () => Date;
  readonly evidenceLevel: EvidenceLevel | undefined;
  readonly events: EventEmitter2 | undefined;
  readonly securityEvents: SecurityEventEmitter;
  /** Whether a capability of that name is registered: an unknown name is recorded by its fingerprint only. */
  readonly isRegistered: (capability: string) => boolean;
  /** The tenant of the current action context, if any: it names the run's evidence stream. */
  readonly currentTenant: () => string | null | undefined;
}

/** Which entry mode a run is: `execute`, `evaluate`, `ask`, `guard`, `enqueue`, or a worker's deferred run. */
export interface RunMode {
  readonly toolKind: ToolKind;
  readonly explicitApproval: boolean;
  /** `false` for `evaluate` and `guard`: a dry run issues no receipt and parks nothing. */
  readonly issueReceipts: boolean;
  /** Set on a worker's re-run of an approved review item (docs/review-lane.md). */
  readonly deferred?: DeferredRun;
  /** The approval batch a receipt issued by the run joins ({@link InvocationOptions.approvalBatch}). */
  readonly approvalBatch?: string;
  /** What of a throw is the caller's runtime pausing the run ({@link InvocationOptions.isPause}): its span's too. */
  readonly isPause?: (error: unknown) => boolean;
}

/**
 * The entry modes whose settings are fixed; `execute` takes its tool kind, approval and deferred run from its caller,
 * and `enqueue` its approval.
 */
export const RunMode = {
  Evaluate: { toolKind: ToolKind.Evaluation, explicitApproval: false, issueReceipts: false },
  /** A runtime's asking whether a bound tool's call needs approval (ADR 0127): receipts issued, nothing approved. */
  Ask: { toolKind: ToolKind.Bound, explicitApproval: false, issueReceipts: true },
  Guard: { toolKind: ToolKind.Guarded, explicitApproval: false, issueReceipts: false },
} as const satisfies Record<string, RunMode>;

/**
 * Refuses what cannot be a {@link Proposal}: anything but an object with a string `capability`. The application (or a
 * Verdict runtime, from a declared binding) builds the proposal, so this is an application fault, thrown before the
 * run reads a context or records anything (docs/architecture.md, step 1). What the model writes inside a
 * well-formed proposal — an unknown capability name, arguments, a tool-call id — stays a recorded `deny` at
 * `proposal`. The error names the type it got, never a value.
 * @throws VerdictConfigurationError
 */
export function assertProposal(proposal: unknown): asserts proposal is Proposal {
  const got = malformation(proposal);
  if (got === undefined) return;
  throw new VerdictConfigurationError(
    `A proposal must be an object with a string capability, { capability: 'orders.cancel', arguments: { … } }; got ${got}. Nothing was recorded.`,
  );
}

/** What is wrong with a would-be proposal, by type only; `undefined` when it has a string `capability`. */
function malformation(proposal: unknown): string | undefined {
  if (proposal === null || proposal === undefined) return String(proposal);
  if (Array.isArray(proposal)) return 'an array';
  if (typeof proposal !== 'object') return `a ${typeof proposal}`;
  const { capability } = proposal as { readonly capability?: unknown };
  if (typeof capability === 'string') return undefined;
  if (capability === undefined) return 'an object without a capability';
  return `an object whose capability is ${capability === null ? 'null' : `a ${typeof capability}`}`;
}

/** The state of one proposal's way through the pipeline, and how its result is answered. */
export class PipelineRun {
  /** Set when the run stops for a human: what the application needs to ask for approval. */
  challenge: ApprovalChallenge | undefined;
  /** The server-side action context, once step 0 has read it. */
  context: ActionContext | undefined;
  /** The actor's fingerprint (`ActorAttribution`), computed once at step 0 for the records and the run's events. */
  actorFingerprint: string | null | undefined;
  /** `sha256(JCS(arguments))`, once step 1 has validated them. */
  argumentsFingerprint: string | null = null;
  /** What the provenance stage (step 1a) found, once it ran: shown to an approver or reviewer of this run. */
  provenance: ProvenanceAssessment | undefined;
  /** The refusals shadow mode recorded as `would_deny` / `would_confirm` and went on past; `undefined` while none. */
  shadowed: Decision[] | undefined;

  private constructor(
    private readonly setting: PipelineRunSetting,
    readonly trail: EvidenceTrail,
    /** What the run's `execute_tool` span names. */
    readonly subject: ToolCallSubject,
    private readonly mode: RunMode,
  ) {}

  /**
   * Starts the run of one proposal: its evidence trail, and what its span names.
   * @throws VerdictConfigurationError for a proposal that is not an object with a string `capability` ({@link assertProposal}).
   */
  static begin(setting: PipelineRunSetting, proposal: Proposal, mode: RunMode): PipelineRun {
    assertProposal(proposal);
    // An unknown name is model-written text: evidence and spans keep its fingerprint, never the text itself.
    const capability = recordedCapability(proposal.capability, setting.isRegistered(proposal.capability));
    // No fingerprint of a missing (`null`, blank) or malformed id: the envelope refuses a malformed one.
    const toolCallId = proposedToolCallId(proposal.toolCallId);
    const toolCallFingerprint =
      toolCallId.wellFormed && toolCallId.id !== null ? fingerprintString(toolCallId.id) : null;
    const { toolKind } = mode;
    const trail = new EvidenceTrail(
      setting.evidence,
      setting.clock,
      evidenceId(),
      capability,
      toolKind,
      (failure) => reportLateEvidenceFailure(setting.events, failure),
      evidenceStreamOf(setting.currentTenant()),
      setting.evidenceLevel,
    );
    if (toolCallFingerprint !== null) trail.establish({ toolCallFingerprint });
    const subject = { capability, toolKind, correlationId: trail.correlationId, toolCallFingerprint };
    return new PipelineRun(setting, trail, subject, mode);
  }

  get toolKind(): ToolKind {
    return this.mode.toolKind;
  }

  get explicitApproval(): boolean {
    return this.mode.explicitApproval;
  }

  get issueReceipts(): boolean {
    return this.mode.issueReceipts;
  }

  get approvalBatch(): string | undefined {
    return this.mode.approvalBatch;
  }

  get deferred(): DeferredRun | undefined {
    return this.mode.deferred;
  }

  /** Step 0: who proposed. Every record carries the fingerprint of the actor's key, never the actor. */
  attribute(context: ActionContext, actorFingerprint: string | null): void {
    this.context = context;
    this.actorFingerprint = actorFingerprint;
    this.trail.establish({ actorFingerprint });
  }

  /** Records `decision` on the trail and answers it. */
  decided(decision: Decision): Decision {
    this.trail.record(decision);
    return decision;
  }

  /**
   * Shadow mode (docs/shadow-mode.md): whether the run goes on past `refusal`, the answer of a step that shadow mode
   * may soften, because its capability is declared `enforce: false`. Only when its record was re-labelled
   * `would_deny` / `would_confirm` ({@link EvidenceTrail.shade}); `ShadowDecisionRecorded` is raised with the run's
   * events. The pipeline asks only at the steps ADR 0098 names, and only after a refusal: an enforced capability
   * pays nothing.
   */
  proceedsPast(definition: CapabilityDefinition, refusal: Decision): boolean {
    if (definition.enforce !== false || !this.trail.shade(refusal)) return false;
    this.noteShadowed(refusal);
    return true;
  }

  /** A refusal recorded in shadow mode by the step itself (a provenance rule declared `enforce: false`). */
  noteShadowed(decision: Decision): void {
    (this.shadowed ??= []).push(decision);
  }

  /**
   * Runs `steps` and then writes the run's remaining evidence: a write failure before any mutating gate
   * stops the action; on an exception the write is attempted and the exception propagates unchanged.
   */
  async conclude<T>(steps: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await steps();
    } catch (error) {
      await this.trail.closeAfterFault();
      if (this.shadowed !== undefined) await this.observeShadowed();
      throw error;
    }
    await this.trail.close();
    return result;
  }

  /** The result of a run that executed; a promise only while its security events are still being handled. */
  executed<T>(stage: Stage, output: T): ExecutionResult<T> | Promise<ExecutionResult<T>> {
    const { trail } = this;
    const decision = Decision.permit(stage);
    const result = {
      executed: true,
      capability: trail.capability,
      correlationId: trail.correlationId,
      decision,
      output,
    };
    return this.afterObserving(decision, result as ExecutionResult<T>);
  }

  /** The result of a run that did not execute; a promise only while its security events are still being handled. */
  notExecuted(decision: Decision): ExecutionResult<never> | Promise<ExecutionResult<never>> {
    const { trail, challenge } = this;
    const result = {
      executed: false,
      capability: trail.capability,
      correlationId: trail.correlationId,
      decision,
      challenge,
    };
    return this.afterObserving(decision, result as ExecutionResult<never>);
  }

  /** `result`, once the run's security events are handled: at once when none was raised. */
  private afterObserving<R>(decision: Decision, result: R): R | Promise<R> {
    const observed = this.observe(decision);
    return observed === undefined ? result : observed.then(() => result);
  }

  /** Security events of a finished run (docs/evidence.md), with those of its shadowed refusals; a dry run raises none. */
  private observe(decision: Decision): Promise<void> | void {
    const { trail, context, argumentsFingerprint, actorFingerprint } = this;
    if (context === undefined || this.toolKind === ToolKind.Evaluation) return;
    return this.setting.securityEvents.observe(
      {
        capability: trail.capability,
        correlationId: trail.correlationId,
        context,
        argumentsFingerprint,
        actorFingerprint,
      },
      decision,
      this.shadowed,
    );
  }

  /** The events of the shadowed refusals of a run that ended with an application fault (which propagates unchanged). */
  private async observeShadowed(): Promise<void> {
    const { trail, context, argumentsFingerprint, actorFingerprint } = this;
    if (context === undefined || this.toolKind === ToolKind.Evaluation) return;
    const { capability, correlationId } = trail;
    try {
      await this.setting.securityEvents.observeShadowed(
        { capability, correlationId, context, argumentsFingerprint, actorFingerprint },
        this.shadowed!,
      );
    } catch {
      // The fault is the run's answer: a listener's failure must not replace it.
    }
  }
}
