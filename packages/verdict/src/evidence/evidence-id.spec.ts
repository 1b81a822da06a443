import { describe, expect, it } from '@jest/globals';
import { validate, version } from 'uuid';
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

  it('never repeats across many pooled draws of random bytes, and each is a valid version 7 UUID to uuid itself', () => {
    const ids = Array.from({ length: 10_000 }, () => evidenceId());
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => !validate(id) || version(id) !== 7)).toEqual([]);
    // Every variant nibble and every hex digit of the random part turns up: no position is stuck.
    expect(new Set(ids.map((id) => id[19])).size).toBe(4);
    for (const position of [15, 16, 17, 20, 21, 22, ...Array.from({ length: 12 }, (_, i) => 24 + i)])
      expect(new Set(ids.map((id) => id[position])).size).toBe(16);
  });
});
