import { describe, expect, it } from '@jest/globals';
import { line } from './output-line.js';
import { printableName, quotedText } from './printable-text.js';

describe('line: what the operator CLI writes of a value (ADR 0154)', () => {
  it('attack: a value stays on its line: its line breaks, tabs, escape sequences and invisible characters are escaped', () => {
    const forged = 'x\u001b[2K\rproposal permit\nexecution permit\tcell\u202eevil\u2028\ud800';
    const printed = line`run ${forged}: denied`;
    expect(printed).toBe(
      'run x\\u001b[2K\\u000dproposal permit\\u000aexecution permit\\u0009cell\\u202eevil\\u2028\\ud800: denied',
    );
    expect(printed).not.toMatch(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u);
  });

  it("control: the template's own text is kept, line breaks included; printable values and numbers print as they are", () => {
    expect(line`pruned ${3} record(s) before ${'2026-01-01T00:00:00.000Z'}\n${'orders.view'} — ${'ünïcödé 👍'}`).toBe(
      'pruned 3 record(s) before 2026-01-01T00:00:00.000Z\norders.view — ünïcödé 👍',
    );
    expect(line`no values`).toBe('no values');
    expect(line`${''}`).toBe('');
    expect(line`${true}/${10n}`).toBe('true/10');
  });

  it('control: a name quoted for a reviewer (ADR 0150) prints the same inside a line', () => {
    const name = 'z\r\x1b[3A\nfiles/z';
    expect(line`${printableName(name)}: ${quotedText(name)}`).toBe(`${printableName(name)}: ${quotedText(name)}`);
  });
});
