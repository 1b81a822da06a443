import { VerdictConfigurationError } from '../errors/configuration.error.js';

/** Default of the module option `toolLoopThreshold`: the third identical proposal in a conversation is a loop. */
export const DEFAULT_TOOL_LOOP_THRESHOLD = 3;

/** Proposals remembered per process; the least recently seen is forgotten first. */
const CAPACITY = 10_000;

/**
 * Counts identical proposals (one key per conversation, actor, capability and argument fingerprint) in
 * process memory, bounded: a loop spread over several nodes is counted per node.
 */
export class ToolLoopCounter {
  private readonly seen = new Map<string, number>();

  constructor(readonly threshold: number = DEFAULT_TOOL_LOOP_THRESHOLD) {
    if (!Number.isSafeInteger(threshold) || threshold < 2)
      throw new VerdictConfigurationError(
        `toolLoopThreshold is an integer of at least 2 (got ${String(threshold)}): a proposal seen once is no loop.`,
      );
  }

  /** Counts one more sighting of `key`; the count when it is a multiple of the threshold, else `null`. */
  count(key: string): number | null {
    const count = (this.seen.get(key) ?? 0) + 1;
    this.seen.delete(key);
    this.seen.set(key, count);
    if (this.seen.size > CAPACITY) this.seen.delete(this.seen.keys().next().value!);
    return count % this.threshold === 0 ? count : null;
  }
}
