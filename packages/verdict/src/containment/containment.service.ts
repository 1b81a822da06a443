import { Inject, Injectable, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { randomUUID } from 'node:crypto';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { Decision } from '../decisions/decision.js';
import { decisionRecord } from '../evidence/decision-record.js';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { Stage } from '../decisions/stage.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { EvidenceWriteFailedError } from '../errors/evidence-write-failed.error.js';
import { ContainmentEngaged } from '../events/containment-engaged.event.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { KILL_SWITCH_OPTIONS, type KillSwitchOptions } from './kill-switch-options.interface.js';
import type { Containment, ContainmentKey } from './containment.js';
import { ContainmentGate } from './containment.gate.js';
import { ContainmentScope, isContainmentScope } from './containment-scope.js';
import type { ContainmentEngagement, ContainmentStore } from './containment-store.interface.js';

/** The longest `by`, operator identity or subject a containment row holds (`varchar(255)` on every engine). */
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
   * Engages a kill switch. Engaging one that is on changes nothing and records nothing (`engaged: false`).
   *
   * @throws VerdictConfigurationError for an unknown scope or capability, a blank subject, reason or `by`, or an over-long field: nothing changes.
   * @example await containment.engage({ scope: 'capability', subject: 'orders.refund', reason: 'INC-4411', by: 'operator:7' });
   */
  async engage(command: ContainmentCommand): Promise<ContainmentEngagement> {
    const key = this.keyOf(command);
    return this.engageKey(key, {
      reason: command.reason,
      engagedBy: command.by,
      operatorIdentity: command.operatorIdentity ?? null,
      toolKind: ToolKind.Operator,
    });
  }

  /**
   * Releases a kill switch; `false` (nothing recorded) when none was engaged for it.
   *
   * @throws VerdictConfigurationError as {@link engage} does.
   */
  async release(command: ContainmentCommand): Promise<boolean> {
    const key = this.keyOf(command);
    const store = this.store();
    const engaged = (await store.active()).some((c) => c.scope === key.scope && c.subject === key.subject);
    if (!engaged) return false;
    // Evidence first: releasing is the unsafe direction, so a release nobody could record does not happen.
    await this.record(key, 'released', command.reason, command.by, command.operatorIdentity ?? null, ToolKind.Operator);
    const released = await store.release(key);
    this.gate.invalidate();
    return released;
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
    if (!engagement.engaged) return engagement;
    // The switch is on whatever happens next: a missing record is reported, never a reason to leave it off.
    const correlationId = await this.record(key, 'engaged', by.reason, by.engagedBy, by.operatorIdentity, by.toolKind);
    this.events?.emit(
      ContainmentEngaged.event,
      new ContainmentEngaged(correlationId, key.scope, key.subject, by.engagedBy, engagedAt),
    );
    return engagement;
  }

  private async record(
    { scope, subject }: ContainmentKey,
    what: 'engaged' | 'released',
    reason: string,
    by: string,
    operatorIdentity: string | null,
    toolKind: ToolKind,
  ): Promise<string> {
    const correlationId = randomUUID();
    // JSON strings: a --by that reads "operator:7 (run by sso:ceo)" stays one quoted value.
    const who = `${JSON.stringify(by)}${operatorIdentity === null ? '' : ` (run by ${JSON.stringify(operatorIdentity)})`}`;
    const text = `${who} ${what} the ${scope} kill switch for ${subject}: ${reason}`;
    const decision =
      what === 'engaged' ? Decision.deny(Stage.Containment, text) : Decision.permit(Stage.Containment, text);
    const capability = scope === ContainmentScope.Capability ? subject : '*';
    try {
      await this.evidence.recordDecision(
        decisionRecord(
          {
            id: randomUUID(),
            correlationId,
            sequence: 0,
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
      throw new EvidenceWriteFailedError(capability, Stage.Containment, error);
    }
    return correlationId;
  }

  /** The store key of an operator's command: capability names as they are, actor keys and tenant ids fingerprinted. */
  private keyOf({ scope, subject, reason, by, operatorIdentity }: ContainmentCommand): ContainmentKey {
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
    for (const [name, value] of [
      ['subject', subject],
      ['by', by],
      ['operator identity', operatorIdentity],
    ] as const)
      if (value !== undefined && (typeof value !== 'string' || value.trim() === '' || value.length > FIELD_MAX_LENGTH))
        throw new VerdictConfigurationError(
          `The ${name} of a containment is a non-blank string of at most ${FIELD_MAX_LENGTH} characters.`,
        );
    if (scope !== ContainmentScope.Capability) return { scope, subject: fingerprintString(subject) };
    if (this.registry.find(subject) === undefined)
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
