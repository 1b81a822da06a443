import { Inject, Injectable } from '@nestjs/common';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { SecurityEvent } from '../events/security-event.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { windowStartOf } from '../rate-limits/fixed-window.js';
import { InMemoryRateLimitStore } from '../rate-limits/in-memory-rate-limit-store.js';
import type { RateLimitStore } from '../rate-limits/rate-limit-store.interface.js';
import { KILL_SWITCH_OPTIONS, type KillSwitchOptions } from './kill-switch-options.interface.js';
import { ContainmentService } from './containment.service.js';
import { Stage } from '../decisions/stage.js';
import type { ContainmentRule } from './containment-rule.js';

/**
 * Runs the module's containment rules on each security event a run raised. A rule counts events per
 * subject in fixed windows (a `RateLimitStore` bucket per rule, event type, window length and subject, refused at
 * the threshold) and contains the subject when the count reaches its threshold. The subject is the event's actor
 * or tenant fingerprint, which Verdict took from the server-side action context: nothing the model wrote can name
 * it. An event without that fingerprint counts for no one. Two rules of one name fail the module at boot
 * (`VerdictConfigurationError`): the name keys the counts.
 */
@Injectable()
export class ContainmentRules {
  private readonly counters: RateLimitStore;

  constructor(
    @Inject(KILL_SWITCH_OPTIONS) private readonly options: KillSwitchOptions,
    private readonly containment: ContainmentService,
  ) {
    this.counters = options.containment?.ruleCounters ?? new InMemoryRateLimitStore();
    // A rule's name keys its counters: two rules of one name would count into one bucket.
    const names = new Set<string>();
    for (const rule of options.containment?.rules ?? []) {
      if (names.has(rule.name))
        throw new VerdictConfigurationError(
          `Two containment rules are named "${rule.name}": a rule's name keys its event counts, so give each rule its own name.`,
        );
      names.add(rule.name);
    }
  }

  /** Whether any rule is configured: without one, {@link observe} has nothing to do. */
  get configured(): boolean {
    return (this.options.containment?.rules?.length ?? 0) > 0;
  }

  /**
   * Counts `event` for every rule that listens to its type; contains the subjects that reach a threshold. A rule
   * that fails (its counter store, its engagement's evidence) does not keep the others from counting: every rule
   * runs, then the failures are thrown together (an `AggregateError` of them).
   */
  async observe(event: SecurityEvent): Promise<void> {
    const failures: unknown[] = [];
    for (const rule of this.options.containment?.rules ?? []) {
      if (!(event instanceof rule.on)) continue;
      // A refusal by a kill switch already engaged is not new evidence against anyone: counting it would let one
      // contained actor's retries contain their whole tenant.
      if (event.stage === Stage.Containment) continue;
      await this.apply(rule, event).catch((error: unknown) => failures.push(error));
    }
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} containment rule(s) failed`);
  }

  /** Counts `event` for `rule`'s subject; contains the subject when the count reaches the threshold. */
  private async apply(rule: ContainmentRule, event: SecurityEvent): Promise<void> {
    const subject = rule.contain === 'actor' ? event.actorFingerprint : event.tenantFingerprint;
    if (subject === null) return;
    const { windowSeconds, threshold } = rule;
    const counted = await this.counters.consume({
      // Keyed by the window and the event type too, as a capability's rate-limit bucket is: windows are aligned to
      // the epoch, so a rule redeployed with another window (or renamed in place to another event) would otherwise
      // share its old row, keeping the old window's end (pruned early) or carrying its counts over.
      bucketFingerprint: fingerprint({
        containment_rule: rule.name,
        event: rule.on.event,
        scope: rule.contain,
        window_seconds: windowSeconds,
        subject,
      }),
      windowStart: windowStartOf(event.occurredAt, windowSeconds),
      windowSeconds,
      // Refused at the limit: the threshold-th event is the first one the bucket refuses.
      limit: threshold - 1,
    });
    if (counted.allowed) return;
    await this.containment.engageByRule(
      { scope: rule.contain, subject },
      rule.name,
      `${threshold} × ${rule.on.name} within ${windowSeconds} s`,
    );
  }
}
