import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type ApprovalReceipt, type PendingReceiptLimits, fingerprint } from '@verdict/nestjs';
import { TypeOrmApprovalReceiptStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import {
  approvePending,
  dropDataSource,
  externalCopiesModel,
  openDataSource,
  startGateWorkers,
} from '@verdict/testing-kit';
import type {
  AdmitReply,
  BatchReply,
  ConsumeReply,
  DatabaseEngine,
  GateRequest,
  GateWorkers,
  ReceiptConsumeReply,
  ReceiptDecisionReply,
  ReceiptIssueReply,
  ReserveBudgetReply,
  TrajectoryAdvanceReply,
} from '@verdict/testing-kit';
import { type SoakViolations, noViolations } from './soak-tally.js';

/** What a limited gate lets through per key: rate-limit units, trajectory steps, spend-budget amounts. */
const LIMIT = 3;
/** What one spend-budget reservation takes: a key's budget is LIMIT of them. */
const AMOUNT = 250;
const WINDOW_SECONDS = 3_600;
const TTL_MS = 3_600_000;
const COPIES = externalCopiesModel(LIMIT);
/** The two conversations the per-conversation race issues in, alternating by worker. */
const CONVERSATIONS = [fingerprint('soak-thread-a'), fingerprint('soak-thread-b')];

/** One durable gate under soak: how a batch of fresh keys is set up and how one key's replies are judged. */
interface SoakGate {
  readonly name: string;
  /** Sets up `keys` fresh keys (rows the gate needs, written by an operator here) and returns each worker's calls, key by key. */
  arrange(keys: readonly string[]): Promise<(index: number) => GateRequest[]>;
  /** Counts what is wrong with one key's replies, one per worker (a call that threw is counted before). */
  judge(replies: readonly unknown[], violations: SoakViolations): void;
}

/** One gate's soak on one engine. */
export interface GateSoakResult {
  readonly engine: string;
  readonly gate: string;
  readonly rounds: number;
  readonly seconds: number;
  readonly violations: SoakViolations;
}

/** How a soak of the durable gates runs. */
export interface GateSoakOptions {
  readonly processes: number;
  readonly rounds: number;
  /** Fresh keys per start barrier; every worker calls each of them, in the same order. */
  readonly batch: number;
  /** The names of the gates to soak (as the report prints them); empty: every gate. */
  readonly gates: readonly string[];
  readonly report: (result: GateSoakResult) => void;
}

/**
 * `rounds` contended rounds of each durable gate on `engine`, `processes` OS processes calling every key:
 * execution claim admission, approval receipt consumption, approve-vs-reject, the pending-receipt caps (a
 * principal's `maxPending`, one pending receipt per tool call and conversation), rate limit, spend-budget
 * reservation (each committed), trajectory advance.
 */
export async function soakGates(engine: DatabaseEngine, options: GateSoakOptions): Promise<GateSoakResult[]> {
  const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
  let workers: GateWorkers | undefined;
  try {
    workers = await startGateWorkers({ count: options.processes, dataSource });
    const results: GateSoakResult[] = [];
    const gates = durableGates(engine, new TypeOrmApprovalReceiptStore(dataSource));
    const unknown = options.gates.filter((name) => !gates.some((gate) => gate.name === name));
    if (unknown.length > 0)
      throw new Error(`No durable gate is named ${unknown.join(', ')}: ${gates.map((gate) => gate.name).join(', ')}.`);
    for (const gate of gates.filter(({ name }) => options.gates.length === 0 || options.gates.includes(name))) {
      const result = await soakGate(engine, gate, workers, options);
      options.report(result);
      results.push(result);
    }
    return results;
  } finally {
    await workers?.close();
    await dropDataSource(dataSource);
  }
}

async function soakGate(
  engine: DatabaseEngine,
  gate: SoakGate,
  workers: GateWorkers,
  options: GateSoakOptions,
): Promise<GateSoakResult> {
  const violations = noViolations();
  const run = randomBytes(8).toString('hex');
  const started = performance.now();
  for (let first = 0; first < options.rounds; first += options.batch) {
    const keys = Array.from(
      { length: Math.min(options.batch, options.rounds - first) },
      (_, i) => `${engine.name}:${gate.name}:${run}:${first + i}`,
    );
    const replies: BatchReply[] = await workers.batchAll(await gate.arrange(keys));
    keys.forEach((_, key) => {
      const answered: unknown[] = [];
      for (const { outcomes } of replies) {
        const outcome = outcomes[key]!;
        if ('reply' in outcome) answered.push(outcome.reply);
        else if (outcome.error.typed) violations.otherViolations++;
        else violations.untypedErrors++;
      }
      gate.judge(answered, violations);
    });
  }
  return {
    engine: engine.name,
    gate: gate.name,
    rounds: options.rounds,
    seconds: (performance.now() - started) / 1000,
    violations,
  };
}

/** Counts `successes` against exactly `expected`: the excess goes to `over`, a shortfall to `underAdmissions`. */
function countExactly(
  successes: number,
  expected: number,
  violations: SoakViolations,
  over: keyof SoakViolations,
): void {
  if (successes > expected) violations[over] += successes - expected;
  if (successes < expected) violations.underAdmissions += expected - successes;
}

function durableGates(engine: DatabaseEngine, operator: TypeOrmApprovalReceiptStore): SoakGate[] {
  const key = (name: string) => fingerprint({ soak: name, engine: engine.name });
  /** A pending receipt's issue for the binding `name` and `toolCallId`, with a candidate id of its own. */
  const pendingReceipt = (name: string, toolCallId: string, now: Date) => ({
    toolCallId,
    capability: 'orders.cancel',
    bindingFingerprint: key(name),
    candidateId: randomBytes(32).toString('base64url'),
    reason: 'Cancelling an order cannot be undone.',
    description: null,
    subject: null,
    expiresAt: new Date(now.getTime() + TTL_MS),
    now,
  });
  /** Every worker issues, for each key, a receipt with a binding of its own under what `issue(key, worker)` says. */
  const racingIssues =
    (issue: (name: string, index: number) => { toolCallId: string; limits: PendingReceiptLimits }) =>
    async (keys: readonly string[]) => {
      const now = new Date();
      return (index: number): GateRequest[] =>
        keys.map((name) => {
          const { toolCallId, limits } = issue(name, index);
          return { gate: 'issueReceipt', ...pendingReceipt(`${name}:${index}`, toolCallId, now), limits };
        });
    };
  /** Issues a pending receipt for `name` as the operator would. */
  const issue = async (name: string) => {
    const receipt = await operator.issue(pendingReceipt(name, `call_${name}`, new Date()));
    if (receipt === null) throw new Error(`The operator could not issue a receipt for ${name}.`);
    return receipt;
  };

  return [
    {
      name: 'execution claim admission',
      arrange: async (keys) => {
        const now = new Date();
        return () =>
          keys.map((name) => ({
            gate: 'admit',
            capability: 'orders.refund',
            policy: 'once-per-order',
            bindingFingerprint: key(name),
            now,
          }));
      },
      judge: (replies, violations) =>
        countExactly(
          (replies as AdmitReply[]).filter((reply) => reply.admitted).length,
          1,
          violations,
          'doubleAdmissions',
        ),
    },
    {
      name: 'approval receipt consumption',
      arrange: async (keys) => {
        const receipts: ApprovalReceipt[] = [];
        for (const name of keys) {
          const pending = await issue(name);
          await approvePending(operator, pending, name);
          receipts.push(pending);
        }
        const now = new Date();
        return () =>
          receipts.map(({ toolCallId, capability, bindingFingerprint }) => ({
            gate: 'consumeReceipt',
            toolCallId,
            capability,
            bindingFingerprint,
            now,
          }));
      },
      judge: (replies, violations) => {
        const checks = replies as ReceiptConsumeReply[];
        countExactly(
          checks.filter((check) => check.outcome === 'approved').length,
          1,
          violations,
          'doubleConsumptions',
        );
        violations.otherViolations += checks.filter(
          (check) => check.outcome !== 'approved' && check.outcome !== 'consumed',
        ).length;
      },
    },
    {
      name: 'approve vs reject',
      arrange: async (keys) => {
        const receipts: ApprovalReceipt[] = [];
        for (const name of keys) receipts.push(await issue(name));
        const now = new Date();
        // Alternating, so that neither decision is always sent first.
        return (index) =>
          receipts.map(({ id, toolCallId }) => ({
            gate: 'decideReceipt',
            receiptId: id,
            toolCallId,
            now,
            decision: index % 2 === 0 ? 'approve' : 'reject',
            by: `approver:${index}`,
          }));
      },
      judge: (replies, violations) => {
        const transitions = replies as ReceiptDecisionReply[];
        const applied = transitions.filter((reply) => reply.outcome === 'approved' || reply.outcome === 'rejected');
        countExactly(applied.length, 1, violations, 'doubleDecisions');
        violations.otherViolations += transitions.filter(
          (reply) => !applied.includes(reply) && reply.outcome !== 'invalid_state',
        ).length;
      },
    },
    {
      name: 'pending receipt cap',
      // Every worker issues a receipt of its own (its own tool call) for the key's principal: the cap lets LIMIT through.
      arrange: racingIssues((name, index) => ({
        toolCallId: `call_${name}:${index}`,
        limits: { principalFingerprint: key(name), maxPending: LIMIT },
      })),
      judge: (replies, violations) => {
        const issued = (replies as ReceiptIssueReply[]).filter((reply) => reply.receipt !== null);
        countExactly(issued.length, LIMIT, violations, 'overAdmissions');
      },
    },
    {
      name: 'one pending receipt per tool call and conversation',
      // Every worker issues for the key's one tool call, each with a binding of its own, in one of two conversations.
      arrange: racingIssues((name, index) => ({
        toolCallId: `call_${name}`,
        limits: {
          principalFingerprint: key(name),
          maxPending: Number.MAX_SAFE_INTEGER,
          conversationFingerprint: CONVERSATIONS[index % CONVERSATIONS.length]!,
        },
      })),
      judge: (replies, violations) => {
        const issued = (replies as ReceiptIssueReply[]).flatMap((reply) =>
          reply.receipt === null ? [] : [reply.receipt],
        );
        // With fewer workers than conversations, a conversation nobody issued in expects nothing.
        for (const conversation of CONVERSATIONS.slice(0, replies.length))
          countExactly(
            issued.filter((receipt) => receipt.conversationFingerprint === conversation).length,
            1,
            violations,
            'overAdmissions',
          );
      },
    },
    {
      name: 'rate limit',
      arrange: async (keys) => {
        const windowStart = new Date(Math.floor(Date.now() / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000);
        return () =>
          keys.map((name) => ({
            gate: 'consume',
            bucketFingerprint: key(name),
            windowStart,
            windowSeconds: WINDOW_SECONDS,
            limit: LIMIT,
            times: 1,
          }));
      },
      judge: (replies, violations) =>
        countExactly(
          (replies as ConsumeReply[])
            .flatMap((reply) => reply.consumptions)
            .filter((consumption) => consumption.allowed).length,
          LIMIT,
          violations,
          'overAdmissions',
        ),
    },
    {
      name: 'spend budget',
      arrange: async (keys) => {
        const windowStart = new Date(Math.floor(Date.now() / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000);
        return () =>
          keys.map((name) => ({
            gate: 'reserveBudget',
            bucketFingerprint: key(name),
            windowStart,
            windowSeconds: WINDOW_SECONDS,
            limit: LIMIT * AMOUNT,
            amount: AMOUNT,
            times: 1,
            settle: 'commit',
          }));
      },
      judge: (replies, violations) =>
        countExactly(
          (replies as ReserveBudgetReply[]).flatMap((reply) => reply.reservations).filter((answer) => answer.reserved)
            .length,
          LIMIT,
          violations,
          'overAdmissions',
        ),
    },
    {
      name: 'trajectory advance',
      arrange: async (keys) => {
        const now = new Date();
        const effect = { effect: 'upload', destination: 'external:drop.example' };
        return () =>
          keys.map((name) => ({
            gate: 'advanceTrajectory',
            trajectoryFingerprint: key(name),
            stateModel: COPIES,
            effect,
            times: 1,
            now,
          }));
      },
      judge: (replies, violations) => {
        const outcomes = (replies as TrajectoryAdvanceReply[]).flatMap((reply) => reply.outcomes);
        countExactly(outcomes.filter((outcome) => outcome.admitted).length, LIMIT, violations, 'overAdmissions');
        violations.otherViolations += outcomes.filter(
          (outcome) => !outcome.admitted && outcome.violation !== 'too_many_copies',
        ).length;
      },
    },
  ];
}
