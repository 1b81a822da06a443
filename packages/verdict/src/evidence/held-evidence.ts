import { AsyncLocalStorage } from 'node:async_hooks';
import { currentToolCall, type ProvenanceToolCall, sameCall } from '../provenance/provenance-scope.js';

/** One agent tool call run under an evidence barrier: where a read-only call's evidence write is held. */
interface HeldCall {
  readonly call: ProvenanceToolCall;
  readonly hold: (write: Promise<void>) => void;
}

const heldCalls = new AsyncLocalStorage<HeldCall>();

/**
 * The evidence writes of read-only calls whose results have not reached a model yet (ADR 0122). A read-only
 * capability's call run under an evidence barrier (the LangChain `evidenceBarrier()` middleware) returns its result
 * while its evidence is still being written; the barrier waits for that write before the result leaves the process
 * in the next model call, and a failed write fails the run there (`EvidenceWriteFailedError`), so no result of a
 * call reaches a model without its record.
 */
export class HeldEvidence {
  /** Writes not yet settled, or settled with a failure not yet reported, by tool-call id. */
  private readonly writes = new Map<string, Promise<void>>();

  /**
   * Runs one agent tool call (`call`: its task and id) so that a read-only call it makes may hold its evidence
   * here. A call of another agent inside it (a sub-agent's) does not match and awaits its own write.
   */
  during<T>(call: ProvenanceToolCall, fn: () => T): T {
    return heldCalls.run({ call, hold: (write) => this.hold(call.id, write) }, fn);
  }

  /**
   * Waits for the writes held for these tool calls; rejects with the first failure (`EvidenceWriteFailedError`),
   * which is then reported once. Ids with nothing held (written before their call returned) pass at once.
   */
  async release(toolCallIds: Iterable<string>): Promise<void> {
    const held: Promise<void>[] = [];
    for (const id of toolCallIds) {
      const write = this.writes.get(id);
      if (write === undefined) continue;
      held.push(write);
      this.writes.delete(id);
    }
    if (held.length > 0) await Promise.all(held);
  }

  private hold(id: string, write: Promise<void>): void {
    // Two calls with one id (a model that reuses ids) are released together.
    const earlier = this.writes.get(id);
    const kept = earlier === undefined ? write : Promise.all([earlier, write]).then(() => undefined);
    kept.catch(() => undefined); // reported by `release`; never an unhandled rejection meanwhile
    this.writes.set(id, kept);
    // A write that succeeded needs no release: the entry goes, and memory stays bounded by writes in flight.
    kept.then(
      () => {
        if (this.writes.get(id) === kept) this.writes.delete(id);
      },
      () => undefined,
    );
  }
}

/**
 * Where the running bound call may hold its evidence write: set when an evidence barrier runs this very tool call
 * (same agent task, same id); `undefined` otherwise, and the call awaits its write before it returns.
 */
export function evidenceHoldOfCurrentCall(): ((write: Promise<void>) => void) | undefined {
  const held = heldCalls.getStore();
  const call = currentToolCall();
  return held !== undefined && call !== undefined && sameCall(held.call, call) ? held.hold : undefined;
}
