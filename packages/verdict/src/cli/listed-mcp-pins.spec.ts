import { REDACTED, redactedHeaderValues } from './listed-mcp-pins.js';

describe('redactedHeaderValues: what verdict mcp pin|diff print of an error quoting a --header value', () => {
  it('attack: no character of a value is left, whatever the length of its words, however occurrences overlap', () => {
    // A 3-character key after its scheme, and a cookie's 1-character value: each quoted alone.
    expect(
      redactedHeaderValues('unknown key x9Q; session Q expired', { Authorization: 'Key x9Q', Cookie: 'sid=Q; a=b' }),
    ).toBe(`unknown key ${REDACTED}; session ${REDACTED} expired`);
    // Two values that overlap where the server quotes them: the characters of both are covered.
    expect(redactedHeaderValues('denied: abcdef', { 'X-A': 'abcd', 'X-B': 'cdef' })).toBe(`denied: ${REDACTED}`);
    // A short word is not looked for inside the marker that replaced a longer one.
    expect(redactedHeaderValues('token abc123 bad', { Authorization: 'abc123 d' })).toBe(
      `token ${REDACTED} ba${REDACTED}`,
    );
    // A quoted parameter's value, quoted alone without its quotes.
    expect(redactedHeaderValues('bad digest 6a9', { Authorization: 'Digest username="ada", response="6a9"' })).toBe(
      `bad digest ${REDACTED}`,
    );
    // URL-encoded and JSON-escaped, each part too.
    expect(redactedHeaderValues('q=sid%3Dk%22Z "k\\"Z"', { Cookie: 'sid=k"Z' })).toBe(`q=${REDACTED} "${REDACTED}"`);
  });

  it('control: a message that quotes no value is unchanged; one that quotes it keeps the rest readable', () => {
    const headers = { Authorization: 'Bearer s3cr3t-token-0f9e8d7c' };
    expect(redactedHeaderValues('HTTP 401 Unauthorized', headers)).toBe('HTTP 401 Unauthorized');
    expect(redactedHeaderValues('denied: Bearer s3cr3t-token-0f9e8d7c (expired)', headers)).toBe(
      `denied: ${REDACTED} (expired)`,
    );
    expect(redactedHeaderValues('', headers)).toBe('');
    expect(redactedHeaderValues('HTTP 401', {})).toBe('HTTP 401');
  });
});
