import { table } from './cli-output.js';
import { escapedUnprintable, printableName, printableOutput, quotedText } from './printable-text.js';

const hostile = [
  'z\r\x1b[3A\x1b[0Jfiles/read_file: as pinned\nfiles/z',
  'bell\x07 del\x7f csi\u009b2K nel\u0085',
  'rlo\u202egnp.exe zwsp\u200b tag\u{e0041} ls\u2028 ps\u2029',
  'lone \ud800 surrogate \udc00',
];

describe('what verdict mcp pin|diff print of a server (ADR 0150)', () => {
  it('attack: a hostile name or text is quoted as JSON in which no control, format or separator character is left raw', () => {
    for (const text of hostile) {
      const printed = printableName(text);
      expect(printed).toBe(quotedText(text));
      expect(printed).not.toMatch(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u);
      // The name is still exactly the server's, for a reviewer who decodes it.
      expect(JSON.parse(printed)).toBe(text);
      expect(escapedUnprintable(text)).not.toMatch(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u);
    }
    expect(printableName('read file')).toBe('"read file"');
    expect(printableName('')).toBe('""');
  });

  it('control: a name of MCP tool-name characters prints as it is; printable text is unchanged', () => {
    for (const name of ['read_file', 'mcp__files__read_file', 'files.v2-beta', 'A9'])
      expect(printableName(name)).toBe(name);
    expect(quotedText('Read a file — ünïcödé 👍')).toBe('"Read a file — ünïcödé 👍"');
    expect(escapedUnprintable('denied: [redacted]')).toBe('denied: [redacted]');
  });
});

describe('what the operator CLI writes (ADR 0154)', () => {
  it('attack: output keeps line breaks and tabs only; a JSON text keeps its value', () => {
    for (const text of hostile) {
      expect(printableOutput(text)).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u);
      const json = JSON.stringify({ name: text }, null, 2);
      expect(JSON.parse(printableOutput(json))).toEqual({ name: text });
    }
  });

  it('attack: a table cell stays on its line', () => {
    const printed = table([{ name: 'a\nforged  row\tcell', n: 1 }], ['name', 'n']);
    expect(printed.split('\n')).toHaveLength(3);
    expect(printed).toContain('a\\u000aforged  row\\u0009cell');
  });

  it('control: printable output and cells are unchanged', () => {
    expect(printableOutput('line one\n\tline two — ü 👍')).toBe('line one\n\tline two — ü 👍');
    expect(table([{ name: 'orders.view', n: 2 }], ['name', 'n']).split('\n')[2]).toBe('orders.view  2');
  });
});
