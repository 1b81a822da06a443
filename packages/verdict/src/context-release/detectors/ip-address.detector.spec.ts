import { describe, expect, it } from '@jest/globals';
import { DataClass } from '../data-class.js';
import { ipAddressDetector } from './ip-address.detector.js';

const found = (text: string) => ipAddressDetector.detect(text).map((span) => text.slice(span.start, span.end));

describe('ipAddressDetector', () => {
  it.each([
    ['192.168.1.10'],
    ['0.0.0.0'],
    ['255.255.255.255'],
    ['::1'],
    ['2001:db8::8a2e:370:7334'],
    ['2001:0db8:0000:0000:0000:ff00:0042:8329'],
    ['fe80::'],
    ['::ffff:192.0.2.1'],
  ])('finds %s in a sentence', (address) => {
    expect(found(`Request from ${address}.`)).toEqual([address]);
  });

  it('finds addresses in brackets, URLs and next to a zone suffix', () => {
    expect(found('http://[2001:db8::1]:8080/ and fe80::1%eth0 and 10.0.0.1:443')).toEqual([
      '2001:db8::1',
      'fe80::1',
      '10.0.0.1',
    ]);
  });

  it('reports one IP span for an IPv4-mapped IPv6 address', () => {
    expect(ipAddressDetector.detect('::ffff:10.0.0.1')).toEqual([
      { detector: 'ip-address', label: 'IP', dataClass: DataClass.Pii, start: 0, end: 15 },
    ]);
  });

  it('treats a trailing single colon as punctuation', () => {
    expect(found('loopback ::1: reachable')).toEqual(['::1']);
  });

  it.each([
    ['an octet above 255', '256.1.1.1'],
    ['a last octet above 255', '1.1.1.256'],
    ['a leading-zero octet', '10.0.0.010'],
    ['five dotted numbers', '1.2.3.4.5'],
    ['three dotted numbers', '1.2.3'],
    ['a clock time', '12:30:45'],
    ['a MAC address', '00:1A:2B:3C:4D:5E'],
    ['nine IPv6 groups', '1:2:3:4:5:6:7:8:9'],
    ['two double colons', '2001::db8::1'],
    ['a letters-only identifier', 'Abc::Def'],
    ['a bare double colon', 'a :: b'],
  ])('does not fire on %s', (_case, text) => {
    expect(found(text)).toEqual([]);
  });
});
