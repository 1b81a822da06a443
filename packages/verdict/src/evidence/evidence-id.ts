import { v7 } from 'uuid';

/**
 * A new id for an evidence record, a checkpoint or a correlation: a UUIDv7 (RFC 9562), whose leading 48 bits are the
 * time in milliseconds and the rest random. Ids written later sort later, so every index keyed by them takes new rows
 * at its right edge, and a seal or an evidence write touches the same few pages whether the tables hold ten thousand
 * records or a million (ADR 0141). The time it carries is the record's `recordedAt` to the millisecond, which the
 * record states anyway.
 *
 * @example
 * const id = evidenceId(); // '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'
 */
export function evidenceId(): string {
  return v7();
}
