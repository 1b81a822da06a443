/**
 * Decision records the evidence trail built (ADR 0162): the declared fields only, every value one the flat canonical
 * form takes as it is, each instant a Date the trail made, frozen before anyone else held the record. A recorder
 * keeps or writes such a record as it is; any other record it rebuilds from its declared fields and checks.
 */
const built = new WeakSet<object>();

/** Whether the trail built and froze `record` (see {@link markBuilt}). */
export function isBuiltRecord(record: object): boolean {
  return built.has(record);
}

/**
 * Freezes `record` and marks it built. Only the trail calls it, for a record it just made with `decisionRecord`
 * from values it checked (`isFlatValue`) and instants it copied.
 */
export function markBuilt<T extends object>(record: T): T {
  built.add(Object.freeze(record));
  return record;
}
