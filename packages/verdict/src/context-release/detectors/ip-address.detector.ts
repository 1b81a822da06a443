import { isIPv4, isIPv6 } from 'node:net';
import { DataClass } from '../data-class.js';
import { HAS_DIGIT, assertText, scanCandidates, type SpanBounds } from './candidate-detector.js';
import type { DetectedSpan } from './detected-span.js';
import type { PiiDetector } from './pii-detector.interface.js';
import { resolveOverlaps } from './resolve-overlaps.js';

// A dotted quad that is not part of a longer dotted run (`1.2.3.4.5`) or a word.
const IPV4_CANDIDATE = /(?<![A-Za-z0-9]|[A-Za-z0-9]\.)[0-9]{1,3}(?:\.[0-9]{1,3}){3}(?![A-Za-z0-9]|\.[0-9])/;
// Two to seven colon-terminated hex groups (empty groups give `::`), then an optional last group or embedded IPv4.
const IPV6_CANDIDATE =
  /(?<![0-9A-Za-z:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9A-Fa-f]{1,4})?(?![0-9A-Za-z:]|\.[0-9])/;

function checkIpv4(match: RegExpExecArray): SpanBounds | undefined {
  return isIPv4(match[0]) ? { start: match.index, end: match.index + match[0].length } : undefined;
}

function checkIpv6(match: RegExpExecArray): SpanBounds | undefined {
  let candidate = match[0];
  // A single trailing colon is punctuation (`loopback ::1: reachable`); `::` is part of the address.
  if (candidate.endsWith(':') && !candidate.endsWith('::')) candidate = candidate.slice(0, -1);
  // At least one decimal digit keeps identifiers such as `Abc::Def` (a valid IPv6 spelling) from firing.
  if (!/[0-9]/.test(candidate) || !isIPv6(candidate)) return undefined;
  return { start: match.index, end: match.index + candidate.length };
}

const identity = { name: 'ip-address', label: 'IP', dataClass: DataClass.Pii } as const;

/**
 * IPv4 and IPv6 addresses. IPv4: a dotted quad, each octet 0–255 without leading zeros (`010` is ambiguous, octal to
 * some parsers, so `10.0.0.010` is not an address, as for `node:net`). IPv6: full and `::`-compressed forms, with or
 * without an embedded IPv4 tail, validated by `node:net`; the address must contain a decimal digit (so `dead::beef` is
 * skipped) and a zone suffix (`%eth0`) is left outside the span. Version strings such as `1.2.3.4` look exactly like
 * addresses and are found. Class {@link DataClass.Pii}, label `IP`.
 */
export const ipAddressDetector: PiiDetector = Object.freeze({
  ...identity,
  detect(text: string): readonly DetectedSpan[] {
    assertText(text, 'ip-address detector');
    // An IPv4-mapped IPv6 address contains a dotted quad; the longer (IPv6) span wins.
    return resolveOverlaps([
      ...scanCandidates(identity, IPV6_CANDIDATE, checkIpv6, text, HAS_DIGIT),
      ...scanCandidates(identity, IPV4_CANDIDATE, checkIpv4, text, HAS_DIGIT),
    ]);
  },
});
