import { Inject, Injectable, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { Decision } from '../decisions/decision.js';
import { decisionRecord } from '../evidence/decision-record.js';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { Stage } from '../decisions/stage.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { EvidenceWriteFailedError } from '../errors/evidence-write-failed.error.js';
import { ContainmentEngaged } from '../events/containment-engaged.event.js';
import { emitSafely } from '../events/emit-safely.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { KILL_SWITCH_OPTIONS, type KillSwitchOptions } from './kill-switch-options.interface.js';
import type { Containment, ContainmentKey } from './containment.js';
import { ContainmentGate } from './containment.gate.js';
import { ContainmentScope, isContainmentScope } from './containment-scope.js';
import type { ContainmentEngagement, ContainmentStore } from './containment-store.interface.js';
import { evidenceId } from '../evidence/evidence-id.js';
import { isAttribution } from '../shared/is-attribution.js';
import { isStorableText } from '../shared/storable-text.js';

/** The longest `by`, operator identity or capability name a containment row holds (`varchar(255)` on every engine). */
const FIELD_MAX_LENGTH = 255;

/** An operator's engagement or release of one kill switch. */
export interface ContainmentCommand {
  readonly scope: ContainmentScope;
  /** A registered capability name, the actor's key (module option `actorKey`), or the tenant id. */
  readonly subject: string;
  /** Why: trusted operator text, recorded in evidence and shown by `verdict contain list`. Never PII. */
  readonly reason: string;
  /** The operator's opaque id (`operator:7`), never PII. */
  readonly by: string;
  /** Who runs the command, from a source the operator does not type (the CLI's operator-identity hook). */
  readonly operatorIdentity?: string;
}

/** What an operator is told when a containment record cannot be written: what the switch is now. */
const UNRECORDED = {
  engaged:
    'The kill switch is engaged, but its engagement could not be recorded: an operator repeating the same command records it once the evidence store is back.',
  released: 'The kill switch stays engaged: its release could not be recorded. Check the evidence store.',
  did_not_release:
    'The release did not apply (the switch changed since it was read), and that could not be recorded. Check the evidence store.',
  release_failed: 'The release may not have applied (the store failed), and that could not be recorded.',
} as const;

/**
 * Kill switches for operators, admin screens and containment rules (docs/containment.md). Every
 * engagement and release is recorded as evidence (`stage: containment`, `tool_kind: operator` or
 * `containment_rule`); an engagement emits `ContainmentEngaged`. Actor keys and tenant ids are
 * fingerprinted before they reach the store or the evidence. This process refuses at once; others
 * within the module's `containment.cacheTtlMs`.
 */
@Injectable()
export class ContainmentService {
  constructor(
    @Inject(KILL_SWITCH_OPTIONS) private readonly options: KillSwitchOptions,
    @Inject(EvidenceRecorder) private readonly evidence: EvidenceRecorder,
    private readonly registry: CapabilityRegistry,
    private readonly gate: ContainmentGate,
    @Optional() private readonly events?: EventEmitter2,
  ) {}

  /**
   * Engages a kill switch. Engaging one that is on changes nothing (`engaged: false`, the kept engagement). Records
   * nothing then, except for a repeat of the kept engagement itself (the same `by`, operator identity and reason):
   * that is the retry of an engagement whose record could not be written, so the engagement is recorded (and
   * `ContainmentEngaged` emitted) again (ADR 0133).
   *
   * @throws VerdictConfigurationError for an unknown scope or capability, a blank subject, reason or `by`, a reason holding U+0000 or a lone surrogate, or an over-long `by`, operator identity or capability name: nothing changes.
   * @throws EvidenceWriteFailedError when the engagement cannot be recorded: the switch stays engaged (the safe direction); repeat the command once evidence is back to record it.
   * @example await containment.engage({ scope: 'capability', subject: 'orders.refund', reason: 'INC-4411', by: 'operator:7' });
   */
  async engage(command: ContainmentCommand): Promise<ContainmentEngagement> {
    const key = this.keyOf(command, 'engage');
    return this.engageKey(key, {
      reason: command.reason,
      engagedBy: command.by,
      operatorIdentity: command.operatorIdentity ?? null,
      toolKind: ToolKind.Operator,
    });
  }

  /**
   * Releases a kill switch; `false` when none was engaged for it. A capability switch may be released after its
   * capability was unregistered. The release is recorded first (a release that cannot be recorded does not happen),
   * then only the engagement that was read is released: should another operator release the switch, or release it
   * and engage it again, in between, nothing is released, a second record (same correlation id, `deny`) says the
   * release did not apply, and the answer is `false`.
   *
   * @throws VerdictConfigurationError as {@link engage} does (but for an unregistered capability).
   * @throws EvidenceWriteFailedError when the release cannot be recorded: the switch stays engaged.
   */
  async release(command: ContainmentCommand): Promise<boolean> {
    const key = this.keyOf(command, 'release');
    const store = this.store();
    const engaged = (await store.active()).find((c) => c.scope === key.scope && c.subject === key.subject);
    if (engaged === undefined) return false;
    const operatorIdentity = command.operatorIdentity ?? null;
    // Evidence first: releasing is the unsafe direction, so a release nobody could record does not happen.
    const correlationId = await this.record(key, {
      what: 'released',
      reason: command.reason,
      by: command.by,
      operatorIdentity,
      toolKind: ToolKind.Operator,
    });
    const notReleased = (what: 'did_not_release' | 'release_failed') =>
      this.record(
        key,
        {
          what,
          reason: command.reason,
          by: command.by,
          operatorIdentity,
          toolKind: ToolKind.Operator,
          engagedAt: engaged.engagedAt,
        },
        correlationId,
      );
    // Only the engagement that was read: a stale release never removes a switch engaged again since.
    let released: boolean;
    try {
      released = await store.release(key, engaged.engagedAt);
    } catch (error) {
      // The store failed after the record: say the release may not have applied, then report the fault as it is.
      await notReleased('release_failed').catch(() => undefined);
      throw error;
    } finally {
      this.gate.invalidate();
    }
    if (!released) await notReleased('did_not_release');
    return released;
  }

  /**
   * Whether `command` repeats the engagement `kept` (the same `by`, operator identity and reason): what {@link engage}
   * records again when it finds that engagement on, as the retry of one whose record could not be written (ADR 0133).
   */
  repeatsEngagement(command: ContainmentCommand, kept: Containment): boolean {
    return sameEngagement(kept, {
      engagedBy: command.by,
      operatorIdentity: command.operatorIdentity ?? null,
      reason: command.reason,
    });
  }

  /** Every engaged kill switch, oldest first. Actor and tenant subjects are fingerprints. */
  list(): Promise<Containment[]> {
    return this.store().active();
  }

  /** A containment rule's engagement of an already fingerprinted actor or tenant (never a capability). */
  async engageByRule(
    key: ContainmentKey & { readonly scope: typeof ContainmentScope.Actor | typeof ContainmentScope.Tenant },
    rule: string,
    reason: string,
  ): Promise<ContainmentEngagement> {
    return this.engageKey(key, {
      reason,
      engagedBy: `rule:${rule}`,
      operatorIdentity: null,
      toolKind: ToolKind.ContainmentRule,
    });
  }

  private async engageKey(
    key: ContainmentKey,
    by: { reason: string; engagedBy: string; operatorIdentity: string | null; toolKind: ToolKind },
  ): Promise<ContainmentEngagement> {
    const engagedAt = this.now();
    const engagement = await this.store().engage({
      ...key,
      reason: by.reason,
      engagedBy: by.engagedBy,
      operatorIdentity: by.operatorIdentity,
      engagedAt,
    });
    this.gate.invalidate();
    const kept = engagement.containment;
    // An operator repeating the kept engagement may be retrying one whose record failed: record it again (ADR 0133).
    const repeat = !engagement.engaged && by.toolKind === ToolKind.Operator && sameEngagement(kept, by);
    if (!engagement.engaged && !repeat) return engagement;
    // The switch is on whatever happens next: a missing record is reported, never a reason to leave it off.
    const correlationId = await this.record(key, {
      what: 'engaged',
      reason: by.reason,
      by: by.engagedBy,
      operatorIdentity: by.operatorIdentity,
      toolKind: by.toolKind,
      ...(repeat ? { engagedAt: kept.engagedAt } : {}),
    });
    emitSafely(
      this.events,
      ContainmentEngaged.event,
      new ContainmentEngaged(correlationId, key.scope, key.subject, by.engagedBy, kept.engagedAt),
    );
    return engagement;
  }

  /**
   * One containment record: `what` an operator or a rule did (`did_not_release`: a release recorded under
   * `correlationId` that found the switch released, or engaged again, since it was read; `release_failed`: one whose
   * store failed, so it may not have applied). `engagedAt`: the instant of the engagement a repeat or a failed release
   * was about. Returns the record's correlation id.
   */
  private async record(
    { scope, subject }: ContainmentKey,
    act: {
      what: 'engaged' | 'released' | 'did_not_release' | 'release_failed';
      reason: string;
      by: string;
      operatorIdentity: string | null;
      toolKind: ToolKind;
      engagedAt?: Date;
    },
    correlationId?: string,
  ): Promise<string> {
    const { what, reason, by, operatorIdentity, toolKind, engagedAt } = act;
    const correlation = correlationId ?? evidenceId();
    // JSON strings: a --by that reads "operator:7 (run by sso:ceo)" stays one quoted value.
    const who = `${JSON.stringify(by)}${operatorIdentity === null ? '' : ` (run by ${JSON.stringify(operatorIdentity)})`}`;
    const theSwitch = `the ${scope} kill switch for ${subject}`;
    const text =
      what === 'did_not_release'
        ? `${who}'s release of ${theSwitch} (engaged at ${engagedAt!.toISOString()}) did not apply: it was released, or released and engaged again, since it was read: ${reason}`
        : what === 'release_failed'
          ? `${who}'s release of ${theSwitch} (engaged at ${engagedAt!.toISOString()}) may not have applied: the store failed: ${reason}`
          : what === 'engaged' && engagedAt !== undefined
            ? `${who} engaged ${theSwitch} (a repeat of its engagement at ${engagedAt.toISOString()}): ${reason}`
            : `${who} ${what} ${theSwitch}: ${reason}`;
    const decision =
      what === 'released' ? Decision.permit(Stage.Containment, text) : Decision.deny(Stage.Containment, text);
    const capability = scope === ContainmentScope.Capability ? subject : '*';
    try {
      await this.evidence.recordDecision(
        decisionRecord(
          {
            id: evidenceId(),
            correlationId: correlation,
            sequence: correlationId === undefined ? 0 : 1,
            capability,
            toolKind,
            stage: decision.stage,
            disposition: decision.disposition,
            reason: decision.reason,
            recordedAt: this.now(),
          },
          {},
        ),
      );
    } catch (error) {
      throw new EvidenceWriteFailedError(capability, Stage.Containment, error, UNRECORDED[what]);
    }
    return correlation;
  }

  /**
   * The store key of an operator's command: capability names as they are, actor keys and tenant ids fingerprinted
   * (a fingerprint always fits the store's column, so only a capability name is held to its length). A capability
   * must be registered to be contained; any engaged capability switch may be released, even of one no longer
   * registered.
   */
  private keyOf(
    { scope, subject, reason, by, operatorIdentity }: ContainmentCommand,
    action: 'engage' | 'release',
  ): ContainmentKey {
    if (!isContainmentScope(scope))
      throw new VerdictConfigurationError(
        `A kill switch's scope is capability, actor or tenant, not "${String(scope)}".`,
      );
    for (const [name, value] of [
      ['subject', subject],
      ['reason', reason],
      ['by', by],
    ] as const)
      if (typeof value !== 'string' || value.trim() === '')
        throw new VerdictConfigurationError(`Containment needs a non-blank ${name}.`);
    // Kept and compared as written (a repeat is the same reason, ADR 0133): text every engine stores as it is. An
    // operator's input, refused as a claim resolution's --reason is: PostgreSQL refuses U+0000, and the other engines
    // keep a lone surrogate as U+FFFD, so no repeat would ever be the same.
    if (!isStorableText(reason))
      throw new VerdictConfigurationError(
        'The reason of a containment is a string without U+0000 or a lone surrogate: nothing was contained or released.',
      );
    for (const [name, value] of [
      ['capability name', scope === ContainmentScope.Capability ? subject : undefined],
      ['by', by],
      ['operator identity', operatorIdentity],
    ] as const)
      if (value !== undefined && !isAttribution(value))
        throw new VerdictConfigurationError(
          `The ${name} of a containment is a non-blank string of at most ${FIELD_MAX_LENGTH} characters, without U+0000 or a lone surrogate.`,
        );
    if (scope !== ContainmentScope.Capability) return { scope, subject: fingerprintString(subject) };
    if (action === 'engage' && this.registry.find(subject) === undefined)
      throw new VerdictConfigurationError(
        `No capability "${subject}" is registered: check the name (verdict validate lists them); nothing was contained.`,
      );
    return { scope, subject };
  }

  private store(): ContainmentStore {
    const containment = this.options.containment;
    if (containment === undefined)
      throw new VerdictConfigurationError(
        'No containment store is configured: pass `containment: { store }` to VerdictModule.forRoot.',
      );
    return containment.store;
  }

  private now(): Date {
    return (this.options.clock ?? (() => new Date()))();
  }
}

/** Whether `kept` was engaged by the same `by`, operator identity and reason as `by`. */
function sameEngagement(
  kept: Containment,
  by: { readonly engagedBy: string; readonly operatorIdentity: string | null; readonly reason: string },
): boolean {
  return kept.engagedBy === by.engagedBy && kept.operatorIdentity === by.operatorIdentity && kept.reason === by.reason;
}
