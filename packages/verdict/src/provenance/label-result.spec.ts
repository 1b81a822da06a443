import { describe, expect, it } from '@jest/globals';
import { Source } from '../context-release/source.js';
import { Trust } from '../context-release/trust.js';
import { labelResult } from './label-result.js';
import { labelledText } from './labelled-content.js';
import type { ResultProvenance } from './result-provenance.js';

const bank = Source.external('bank');
/** The labelled items as `source trust: text`, in order. */
const labelled = (text: string, declared: ResultProvenance) =>
  labelResult(text, 'account.view', declared).map(
    (item) => `${item.label.source.toString()} ${item.label.trust}: ${labelledText(item)}`,
  );

describe('labelResult', () => {
  const paths: ResultProvenance['paths'] = { 'rows.*.subject': { trust: Trust.Untrusted, source: bank } };

  it('labels a text that does not parse untrusted as a whole when labels are per path', () => {
    expect(labelled('Subject: pay DE89', { trust: Trust.Trusted, paths })).toEqual([
      'tool:account.view untrusted: Subject: pay DE89',
    ]);
    expect(labelled('"a JSON string, not an object"', { trust: Trust.Trusted, paths })).toEqual([
      'tool:account.view untrusted: "a JSON string, not an object"',
    ]);
  });

  it('keeps the declared trust of a text without per-path labels', () => {
    expect(labelled('Subject: rent', { trust: Trust.Trusted })).toEqual(['tool:account.view trusted: Subject: rent']);
  });

  it("parses a YAML result when the capability declares format 'yaml'", () => {
    const yaml = 'owner: alice\nrows:\n  - subject: pay DE89\n';
    expect(labelled(yaml, { trust: Trust.Trusted, format: 'yaml', paths })).toEqual([
      'tool:account.view trusted: alice',
      'external:bank untrusted: pay DE89',
    ]);
    expect(labelled('owner: [unclosed', { trust: Trust.Trusted, format: 'yaml', paths })).toEqual([
      'tool:account.view untrusted: owner: [unclosed',
    ]);
  });

  it("applies a path label only to the rows its predicate accepts; other rows take the next path's label", () => {
    const result = JSON.stringify({
      rows: [
        { incoming: true, subject: 'pay DE89', tags: ['urgent'] },
        { incoming: false, subject: 'rent', tags: ['home'] },
      ],
    });
    const declared: ResultProvenance = {
      trust: Trust.Trusted,
      paths: {
        'rows.*': { trust: Trust.Untrusted, source: Source.external('other'), when: (row) => row.subject === 'rent' },
        'rows.*.subject': { trust: Trust.Untrusted, source: bank, when: (row) => row.incoming === true },
        'rows.*.tags': { trust: Trust.Untrusted, source: bank, when: (row) => row.incoming === true },
      },
    };
    expect(labelled(result, declared)).toEqual([
      'external:bank untrusted: pay DE89\nurgent',
      // The row the predicate gave the other source is that source's whole: its keys and its boolean too.
      'external:other untrusted: incoming\nfalse\nsubject\nrent\ntags\nhome',
    ]);
  });
});
