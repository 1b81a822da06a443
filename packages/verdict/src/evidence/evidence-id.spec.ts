import { describe, expect, it } from '@jest/globals';
import { evidenceId } from './evidence-id.js';

/** The milliseconds a UUIDv7 carries in its first 48 bits. */
const millisecondsOf = (id: string) => parseInt(id.replaceAll('-', '').slice(0, 12), 16);

describe('evidenceId', () => {
  it('is a UUIDv7 carrying the time it was minted, so ids minted later sort after it', () => {
    const before = Date.now();
    const id = evidenceId();
    const after = Date.now();

    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(millisecondsOf(id)).toBeGreaterThanOrEqual(before);
    expect(millisecondsOf(id)).toBeLessThanOrEqual(after);
    // An id of an earlier millisecond sorts before it, as a backlog's ids sort before a new record's.
    const earlier = (before - 1).toString(16).padStart(12, '0');
    expect(`${earlier.slice(0, 8)}-${earlier.slice(8)}-7fff-bfff-ffffffffffff` < id).toBe(true);
  });

  it('never repeats across many pooled draws of random bytes', () => {
    const ids = Array.from({ length: 10_000 }, () => evidenceId());
    expect(new Set(ids).size).toBe(ids.length);
  });
});
