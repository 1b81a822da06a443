import { describe, expect, it } from '@jest/globals';
import { Source } from '../context-release/source.js';
import { Trust } from '../context-release/trust.js';
import { labelResult } from './label-result.js';
import { labelledText } from './labelled-content.js';
import { ResultFormat, type ResultProvenance } from './result-provenance.js';

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

  it('labels a number also as written where a double loses its digits, and ordinary numbers as before', () => {
    const declared = (format: 'json' | 'yaml'): ResultProvenance => ({
      trust: Trust.Trusted,
      format,
      paths: { 'rows.*': { trust: Trust.Untrusted, source: bank } },
    });
    const json =
      '{"own":98765432109876543210,"rows":[{"n":12345678901234567890,"x":0.12345678901234567890,' +
      '"a":25.0,"b":1E3,"c":-4821,"s":"\\"12345678901234567890","n":99999999999999999999}]}';
    expect(labelled(json, declared('json'))).toEqual([
      'tool:account.view trusted: 98765432109876540000\n98765432109876543210',
      // A duplicate key is the last one, as JSON.parse reads it; a string's digits are the string's.
      'external:bank untrusted: n\n100000000000000000000\n99999999999999999999\nx\n0.12345678901234568\n' +
        '0.12345678901234567890\na\n25\nb\n1000\nc\n-4821\ns\n"12345678901234567890',
    ]);
    const yaml = 'own: 98765432109876543210\nrows:\n  - n: &n 12345678901234567890\n    a: 25.0\n    m: *n\n';
    expect(labelled(yaml, declared('yaml'))).toEqual([
      'tool:account.view trusted: 98765432109876540000\n98765432109876543210',
      'external:bank untrusted: n\n12345678901234567000\n12345678901234567890\na\n25\nm\n' +
        '12345678901234567000\n12345678901234567890',
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

  describe("keys an untrusted path's `*` matches are the map's data (ADR 0164)", () => {
    const feedback = Source.external('feedback');
    const IBAN = 'DE89370400440532013000';
    const result = JSON.stringify({
      product: 'p-1',
      payees: { GB82WEST12345698765432: 'landlord' },
      byAuthor: { [IBAN]: { text: 'Refund me to my name.', incoming: true } },
    });

    it('attack: the keys of a map whose entries are untrusted (`byAuthor.*`) are untrusted text', () => {
      const declared: ResultProvenance = {
        trust: Trust.Trusted,
        paths: { 'byAuthor.*': { trust: Trust.Untrusted, source: feedback } },
      };
      expect(labelled(result, declared)).toEqual([
        'tool:account.view trusted: p-1\nlandlord',
        `external:feedback untrusted: ${IBAN}\ntext\nRefund me to my name.\nincoming\ntrue`,
      ]);
    });

    it('attack: so are the keys a `*` matches above a deeper untrusted leaf (`byAuthor.*.text`)', () => {
      const declared: ResultProvenance = {
        trust: Trust.Trusted,
        paths: { 'byAuthor.*.text': { trust: Trust.Untrusted, source: feedback } },
      };
      expect(labelled(result, declared)).toEqual([
        'tool:account.view trusted: p-1\nlandlord',
        `external:feedback untrusted: ${IBAN}\nRefund me to my name.`,
      ]);
      // A map of scalars under `byAuthor.*`: the key and its text alike.
      expect(
        labelled(JSON.stringify({ byAuthor: { [IBAN]: 'Refund me.' } }), {
          trust: Trust.Trusted,
          paths: { 'byAuthor.*': { trust: Trust.Untrusted, source: feedback } },
        }),
      ).toEqual([`external:feedback untrusted: ${IBAN}\nRefund me.`]);
    });

    it("control: a trusted map's keys, a key the path spells and a row `when` declines stay the result's structure", () => {
      const declared: ResultProvenance = {
        trust: Trust.Trusted,
        paths: {
          'byAuthor.*.text': { trust: Trust.Untrusted, source: feedback, when: (row) => row.incoming === true },
          'payees.landlord': { trust: Trust.Untrusted, source: feedback },
        },
      };
      const declined = JSON.stringify({
        payees: { landlord: 'GB82WEST12345698765432' },
        byAuthor: { [IBAN]: { text: 'Our own note.', incoming: false } },
      });
      expect(labelled(declined, declared)).toEqual([
        'external:feedback untrusted: GB82WEST12345698765432',
        'tool:account.view trusted: Our own note.',
      ]);
    });

    it('attack: a YAML key that is a long number is labelled as written, not as a double reads it', () => {
      const declared: ResultProvenance = {
        trust: Trust.Trusted,
        format: ResultFormat.Yaml,
        paths: { 'byAuthor.*': { trust: Trust.Untrusted, source: feedback } },
      };
      expect(labelled('byAuthor:\n  12345678901234567890: Refund me.\n  42: Thanks.\n', declared)).toEqual([
        // An integer key that is an array index comes first in a JavaScript object.
        'external:feedback untrusted: 42\nThanks.\n12345678901234567890\nRefund me.',
      ]);
    });

    it("control: beside an untrusted `*`, a key a trusted path spells is the application's name", () => {
      const declared: ResultProvenance = {
        trust: Trust.Trusted,
        paths: {
          'byAuthor.staff': { trust: Trust.Trusted, source: Source.application('staff-notes') },
          'byAuthor.*': { trust: Trust.Untrusted, source: feedback },
        },
      };
      const notes = JSON.stringify({ byAuthor: { staff: 'Checked.', [IBAN]: 'Refund me.' } });
      expect(labelled(notes, declared)).toEqual([
        'application:staff-notes trusted: Checked.',
        `external:feedback untrusted: ${IBAN}\nRefund me.`,
      ]);
    });
  });
});
