// A worker process of `startGateWorkers`: its own DataSource on the test database, Verdict's TypeORM
// stores from the built package, one gate call per request, prepared before the pool's start barrier.
// Run as compiled JS (the pool refuses a build older than the sources), never imported.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { VerdictError, compileStateModel, foldEffects } from '@verdict/nestjs';
import {
  TypeOrmApprovalReceiptStore,
  TypeOrmBudgetStore,
  TypeOrmExecutionClaimStore,
  TypeOrmProvenanceContentStore,
  TypeOrmRateLimitStore,
  TypeOrmTrajectoryStore,
  verdictEntities,
} from '@verdict/nestjs/typeorm';
import type {
  AdmitReply,
  BatchOutcome,
  BatchReply,
  BatchRequest,
  ConsumeReply,
  ContentsWriteReply,
  GateReply,
  GateRequest,
  GateWorkerInit,
  ReceiptConsumeReply,
  ReceiptDecisionReply,
  ReceiptBatchDecisionReply,
  ReserveBudgetReply,
  ReceiptIssueReply,
  TrajectoryAdvanceReply,
} from './gate-protocol.js';
import { serveParent } from './worker-runtime.js';

serveParent<GateWorkerInit, GateRequest | BatchRequest, GateReply | BatchReply>(async ({ dataSource: options }) => {
  const dataSource = await new DataSource({ ...options, entities: verdictEntities, migrations: [] }).initialize();
  const claims = new TypeOrmExecutionClaimStore(dataSource);
  const rateLimits = new TypeOrmRateLimitStore(dataSource);
  const receipts = new TypeOrmApprovalReceiptStore(dataSource);
  const trajectories = new TypeOrmTrajectoryStore(dataSource);
  const budgets = new TypeOrmBudgetStore(dataSource);
  const contents = new TypeOrmProvenanceContentStore(dataSource);

  /** Everything but the gate call: arguments built, state model compiled, candidate id drawn. */
  const call = (request: GateRequest): (() => Promise<GateReply>) => {
    if (request.gate === 'advanceTrajectory') {
      const { trajectoryFingerprint, stateModel, effect, times, now } = request;
      const machine = compileStateModel(stateModel);
      const advance = foldEffects(machine, [effect]);
      return async () => {
        const outcomes = [];
        for (let i = 0; i < times; i++)
          outcomes.push(await trajectories.advance({ trajectoryFingerprint, initial: machine.initial, advance, now }));
        return { outcomes } satisfies TrajectoryAdvanceReply;
      };
    }
    if (request.gate === 'reserveBudget') {
      const { gate: _gate, times, settle, ...reservation } = request;
      return async () => {
        const reservations = [];
        for (let i = 0; i < times; i++) {
          const answer = await budgets.reserve(reservation);
          if (answer.reserved) await budgets[settle](reservation);
          reservations.push(answer);
        }
        return { reservations } satisfies ReserveBudgetReply;
      };
    }
    if (request.gate === 'writeContents') {
      const { write, texts, now } = request;
      const fingerprints = texts.map((kept) => kept.fingerprint);
      return async () => {
        if (write === 'prune') return { pruned: await contents.prune(now) } satisfies ContentsWriteReply;
        await (write === 'keep' ? contents.keep(texts, now) : contents.forget(fingerprints));
        return { pruned: 0 } satisfies ContentsWriteReply;
      };
    }
    if (request.gate === 'issueReceipt') {
      const { gate: _gate, ...issue } = request;
      return async () => ({ receipt: await receipts.issue(issue) }) satisfies ReceiptIssueReply;
    }
    if (request.gate === 'consumeReceipt') {
      const { gate: _gate, now, ...key } = request;
      return async () => (await receipts.consume(key, now)) satisfies ReceiptConsumeReply;
    }
    if (request.gate === 'decideReceipt') {
      const { gate: _gate, decision, ...receipt } = request;
      return async () => ({ decision, ...(await receipts[decision](receipt)) }) satisfies ReceiptDecisionReply;
    }
    if (request.gate === 'decideReceiptBatch') {
      const { gate: _gate, ...decision } = request;
      return async () => (await receipts.decideBatch!(decision)) satisfies ReceiptBatchDecisionReply;
    }
    if (request.gate === 'admit') {
      const candidateId = randomBytes(32).toString('base64url');
      const { gate: _gate, ...claim } = request;
      return async () => ({ candidateId, ...(await claims.admit({ ...claim, candidateId })) }) satisfies AdmitReply;
    }
    const { gate: _gate, times, ...unit } = request;
    return async () => {
      const consumptions = [];
      for (let i = 0; i < times; i++) consumptions.push(await rateLimits.consume(unit));
      return { consumptions } satisfies ConsumeReply;
    };
  };

  /** A batch's calls, one after another; a call that throws is reported and the next one still runs. */
  const batch = ({ requests }: BatchRequest): (() => Promise<BatchReply>) => {
    const calls = requests.map(call);
    return async () => {
      const outcomes: BatchOutcome[] = [];
      for (const run of calls) {
        try {
          outcomes.push({ reply: await run() });
        } catch (error) {
          const { name, message } = error instanceof Error ? error : { name: typeof error, message: String(error) };
          outcomes.push({ error: { name, message, typed: error instanceof VerdictError } });
        }
      }
      return { outcomes };
    };
  };
  const prepareCall = (request: GateRequest | BatchRequest) =>
    request.gate === 'batch' ? batch(request) : call(request);

  return {
    handle: (request) => prepareCall(request)(),
    async prepare(request) {
      const prepared = prepareCall(request);
      // A round trip on the pool right before the barrier: the racing statement finds a live, idle connection.
      await dataSource.query('SELECT 1');
      return prepared;
    },
    close: () => dataSource.destroy(),
  };
});
