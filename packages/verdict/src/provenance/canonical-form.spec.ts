import { describe, expect, it } from '@jest/globals';
import { holdsAmbiguousUrlAuthority } from './ambiguous-url-authority.js';
import { createRequire } from 'node:module';
import { canonicalForm, literalForm, vouchingForm } from './canonical-form.js';
import { DASHES, confusableSkeleton } from './confusable-skeleton.js';

describe('canonicalForm', () => {
  it('applies NFKC, case folding, removes format characters and collapses white space', () => {
    expect(canonicalForm(' Ｍａｌ\u200bLORY\u00ad@Evil.Example \n\t now ')).toBe('mallory@evil.example now');
  });

  it('writes an IBAN in groups, with dashes or unspaced as the same token, and keeps the next word', () => {
    const iban = 'de89370400440532013000';
    expect(canonicalForm('DE89 3704 0044 0532 0130 00 bank')).toBe(`${iban} bank`);
    expect(canonicalForm('DE89-3704-0044-0532-0130-00')).toBe(iban);
    expect(canonicalForm('IBAN DE 89 3704 0044 0532 0130 00')).toBe(`iban ${iban}`);
    expect(canonicalForm('de 89 3704 0044 0532 0130 01')).toBe('de 89370400440532013001'); // not a valid IBAN
    // Two letters and a number before it read like a country code and check digits: the IBAN after them is still one.
    expect(canonicalForm('a refund of 25 to DE89 3704 0044 0532 0130 00 today')).toBe(
      `a refund of 25 to ${iban} today`,
    );
    // A separator only between the country code and the check digits, at the end of the text or before a full stop.
    expect(canonicalForm('My account: GB 82WEST12345698765432.')).toBe('my account: gb82west12345698765432.');
    expect(canonicalForm('CH 9300762011623852957')).toBe('ch9300762011623852957');
    expect(canonicalForm('at 10 am pay DE89 3704 0044 0532 0130 00, then GB82 WEST 1234 5698 7654 32')).toBe(
      `at 10 am pay ${iban}, then gb82west12345698765432`,
    );
    expect(canonicalForm('GB82 WEST 1234 5698 7654 32 then')).toBe('gb82west12345698765432 then');
  });

  it('reads JSON string escapes as what they stand for, also in JSON nested in JSON', () => {
    expect(canonicalForm('{"body":"Refund to\\nbilling\\u0040evil.example\\tnow"}')).toBe(
      '{"body":"refund to billing@evil.example now"}',
    );
    expect(canonicalForm(JSON.stringify({ page: JSON.stringify({ to: 'a\nb@evil.example' }) }))).toBe(
      '{"page":"{"to":"a b@evil.example"}"}',
    );
    // Another language's hexadecimal escapes too; what is left of an escape reads as a break, never glued to a value.
    expect(canonicalForm('to\\x0abilling\\u{40}evil.example')).toBe('to billing@evil.example');
    expect(canonicalForm('to\\vbilling@evil.example')).toBe('to billing@evil.example');
    // A backslash before anything else stays.
    expect(canonicalForm('C:\\ 5\\%')).toBe('c:\\ 5\\%');
  });

  it('reads digits of any script as ASCII and folds Cyrillic look-alikes to Latin', () => {
    expect(canonicalForm('٤١٥٥٥٥٠١٠٠')).toBe('4155550100');
    expect(canonicalForm('DE८९ ३७०४')).toBe(canonicalForm('DE89 3704'));
    expect(canonicalForm('раураl.com')).toBe('paypal.com');
  });

  it('writes URLs without scheme, www., default port or trailing slash', () => {
    for (const url of [
      'https://www.Evil.Example/pay/',
      'HTTP://evil.example:80/pay',
      'www.evil.example/pay',
      'evil.example/pay/',
    ])
      expect(canonicalForm(`see ${url} now`)).toBe('see evil.example/pay now');
  });

  it('reads a host spelled in punycode, in any case, as its Unicode spelling: bare, in a URL, in an e-mail address', () => {
    expect(canonicalForm('pay XN--BCHER-KVA.example/pay now')).toBe('pay bücher.example/pay now');
    expect(canonicalForm('see https://www.Xn--Bcher-Kva.Example:443/pay/')).toBe('see bücher.example/pay');
    expect(canonicalForm('mail billing@xn--bcher-kva.example.')).toBe('mail billing@bücher.example.');
    expect(canonicalForm('xn--e1afmkfd.xn--p1ai')).toBe(canonicalForm('пример.рф'));
  });

  it('keeps punycode that does not decode, a label inside a longer one and an e-mail local part as written', () => {
    expect(canonicalForm('xn--zz.example xn--.example foo-xn--bcher-kva.example')).toBe(
      'xn--zz.example xn--.example foo-xn--bcher-kva.example',
    );
    expect(canonicalForm('xn--bcher-kva@example.com')).toBe('xn--bcher-kva@example.com');
  });

  it('decodes only the one A-label of a Unicode label: a punycode the decoder reads as ASCII is another host', () => {
    // The decoder reads `xn--paypal-` as `paypal`, but it is not `paypal.com`'s spelling: DNS tells them apart.
    expect(canonicalForm('xn--paypal-.com')).toBe('xn--paypal-.com');
  });

  it('reads punycode written with look-alike hyphens as punycode', () => {
    expect(canonicalForm('pay xn\u2010\u2010bcher-kva.example')).toBe('pay bücher.example');
  });

  it('decodes punycode before folding confusables: a decoded look-alike folds, its literal form keeps its letters', () => {
    // `xn--l-7sba6dbr.com` is `раураl.com` with Cyrillic `р`, `а` and `у`.
    for (const lookalike of ['xn--l-7sba6dbr.com', 'https://XN--L-7SBA6DBR.com/pay', 'раураl.com'])
      expect(canonicalForm(lookalike).replace('/pay', '')).toBe('paypal.com');
    expect(literalForm('xn--l-7sba6dbr.com')).toBe('раураl.com');
    expect(literalForm('https://xn--l-7sba6dbr.com/pay')).toBe('раураl.com/pay');
  });

  it('writes numbers without thousands separators, exponents or trailing decimal zeros', () => {
    expect(canonicalForm('10,000 · 1e4 · 10000.00 · 10 000 · 0.50 · 1.5e-3')).toBe(
      '10000 · 10000 · 10000 · 10000 · 0.5 · 0.0015',
    );
  });

  it('keeps currency signs as they are, so the number after one is still read as a number', () => {
    expect(canonicalForm('€10,000 · ¥10,000 · ₹10,000.00 · US$10,000 · 10,000 €')).toBe(
      '€10000 · ¥10000 · ₹10000 · us$10000 · 10000 €',
    );
  });

  it('keeps what is not a number as it is: dotted sequences are grouped digits, leading zeros stay', () => {
    expect(canonicalForm('v1.2.3 and 030.123.4567 and 007')).toBe('v1.2.3 and 0301234567 and 007');
  });

  it('reads the unambiguous locale forms of a number as the number', () => {
    expect(canonicalForm("10.000,00 · 10 000,50 · 10'000 · 10’000.50 · 1.000.000,00")).toBe(
      '10000 · 10000.5 · 10000 · 10000.5 · 1000000',
    );
  });

  it('reads a decimal comma beside a currency sign as a decimal, and without one keeps it', () => {
    expect(canonicalForm('1234,56 € · €1234,56 · 12,5 $ · orders 1234,56 · €1,234')).toBe(
      '1234.56 € · €1234.56 · 12.5 $ · orders 1234,56 · €1234',
    );
  });

  it('keeps ambiguous and non-number forms as they are: 10.000 is ten in English, 1,5 may be a list', () => {
    expect(canonicalForm("10.000 · 1,5 · v1.2.3 · the 90's · 1'23")).toBe("10 · 1,5 · v1.2.3 · the 90's · 1'23");
  });

  it('writes IBANs grouped with dots or underscores, and digits grouped with underscores, as one token', () => {
    expect(canonicalForm('DE89.3704.0044.0532.0130.00. Then DE89_3704_0044_0532_0130_00')).toBe(
      'de89370400440532013000. then de89370400440532013000',
    );
    expect(canonicalForm('card 4111_1111_1111_1111')).toBe('card 4111111111111111');
  });

  it('writes grouped digits without separators', () => {
    expect(canonicalForm('call +1 (415) 555-0100.')).toBe('call +14155550100.');
    expect(canonicalForm('card 4111 1111 1111 1111')).toBe('card 4111111111111111');
  });
});

describe('canonicalForm: digit groups end at a line break', () => {
  it('never joins digits across a line break, a tab or a paragraph separator', () => {
    expect(canonicalForm('id 42\n10000')).toBe('id 42 10000');
    expect(canonicalForm('5\r\n2026\t10 000\u2029 7\u2028 8\f9\v1')).toBe('5 2026 10000 7 8 9 1');
    expect(canonicalForm('- 1000\n- 2000\n- 3000')).toBe('- 1000 - 2000 - 3000');
    expect(canonicalForm('+1 415\n555 0100')).toBe('+1415 5550100');
  });

  it('never joins digits across a line break with a separator on each side of it', () => {
    // A slash before the break reads as part of the white space: the break alone must still end the group.
    expect(canonicalForm('id 42/\n-10000')).toBe('id 42 -10000');
    expect(canonicalForm('batch 7/\t(300)')).toBe('batch 7 (300)');
    expect(canonicalForm('1/\u2028/0')).toBe('1 /0');
  });

  it('utility: groups written on one line still read as one value, beside a line break', () => {
    expect(canonicalForm('amount 10 000\nid 42')).toBe('amount 10000 id 42');
    expect(canonicalForm('id 42\nDE89 3704 0044 0532 0130 00\n7')).toBe('id 42 de89370400440532013000 7');
    expect(canonicalForm('7\ncall +1 415 555 0100\n8')).toBe('7 call +14155550100 8');
    expect(canonicalForm('10 000,50\n10\u00a0000')).toBe('10000.5 10000');
  });

  it('utility: an IBAN wrapped across a line still reads as one, its check digits and length say where it ends', () => {
    expect(canonicalForm('pay DE89 3704 0044\n0532 0130 00\n12')).toBe('pay de89370400440532013000 12');
  });

  it('attack: content that vouches (vouchingForm) never reads an IBAN across a line break (ADR 0173)', () => {
    expect(vouchingForm('DE89 3704 0044\n0532 0130 00')).toBe('de8937040044 0532013000');
    expect(vouchingForm('{"title":"DE89 3704 0044","text":"0532\\n0130 00"}')).not.toContain('de89370400440532013000');
  });

  it('utility: content that vouches reads an IBAN in its groups on one line as one, beside line breaks', () => {
    expect(vouchingForm('id 42\nDE89 3704 0044 0532 0130 00\n7')).toBe('id 42 de89370400440532013000 7');
    expect(vouchingForm('DE89-3704-0044-0532-0130-00')).toBe(canonicalForm('DE89-3704-0044-0532-0130-00'));
  });
});

describe('canonicalForm of a long text', () => {
  it('reads a text of several chunks as it reads each of its lines', () => {
    const lines = Array.from(
      { length: 4000 },
      (_, i) =>
        `Line ${i}: pay DE89 3704 0044 0532 0130 00, call +1 (415) 555-${String(i).padStart(4, '0')}, https://www.evil.example/${i}/ kettle`,
    );
    expect(lines.join('\n').length).toBeGreaterThan(3 * 65_536);
    expect(canonicalForm(lines.join('\n'))).toBe(lines.map(canonicalForm).join(' '));
  });
});

describe('canonicalForm: a URL written with backslashes (ADR 0164)', () => {
  it('attack: a `\\` ends the host of an http(s) URL and reads as `/` in its path, as the WHATWG parser reads it', () => {
    expect(new URL('https://files.acme.example\\%70ublic\\%64rop').pathname).toBe('/%70ublic/%64rop');
    expect(canonicalForm('https://files.acme.example\\%70ublic\\%64rop')).toBe('files.acme.example/%70ublic/%64rop');
    expect(canonicalForm('https://files.acme.example\\%73hare\\%74eam')).toBe('files.acme.example/%73hare/%74eam');
    expect(canonicalForm('https://files.acme.example\\@attacker')).toBe('files.acme.example/@attacker');
    expect(canonicalForm('https://files.acme.example\\_drop\\_attacker')).toBe('files.acme.example/_drop/_attacker');
    expect(canonicalForm('upload to www.files.acme.example\\%70ublic now')).toBe(
      'upload to files.acme.example/%70ublic now',
    );
  });

  it('control: a `\\` in the query stays as written, and a URL without backslashes reads as before', () => {
    expect(canonicalForm('https://files.acme.example/share?to=a\\%62')).toBe('files.acme.example/share?to=a\\%62');
    expect(canonicalForm('https://files.acme.example/share/team-finance/')).toBe(
      'files.acme.example/share/team-finance',
    );
  });
});

describe('canonicalForm: a backslash among a URL scheme’s slashes (ADR 0198)', () => {
  it('attack: the host after `https:\\`, `https://\\`, `https:/\\` or `https:\\\\` is kept whole, as the WHATWG parser reads it', () => {
    for (const url of [
      'https:\\evil-refunds.example/claim',
      'https://\\evil-refunds.example/claim',
      'https:/\\evil-refunds.example/claim',
      'https:\\\\evil-refunds.example/claim',
      'HTTPS:\\/\\/\\evil-refunds.example/claim',
      'wss:\\evil-refunds.example/claim',
    ]) {
      expect(new URL(url).host).toBe('evil-refunds.example');
      expect([url, canonicalForm(`pay ${url} now`)]).toEqual([
        url,
        expect.stringContaining('pay evil-refunds.example/claim '),
      ]);
    }
    expect(canonicalForm('file:\\\\srv/share')).toMatch(/^srv\/share /u);
  });

  it('attack: before an escape letter, both the parser’s reading and the escape’s', () => {
    // As written, the parser reads `bank.example`, `nevil.example`, `u0065vil.example`; decoded, the escape is a break
    // or the letter it stands for.
    expect(canonicalForm('https:\\bank.example/x')).toBe('bank.example/x https:// ank.example/x');
    expect(canonicalForm('https:\\nevil.example')).toBe('nevil.example https:// evil.example');
    expect(canonicalForm('{"u":"https:\\u0065vil.example"}')).toBe('{"u":"u0065vil.example evil.example"}');
    expect(canonicalForm('https:\\\\\\u0065vil.example')).toBe('u0065vil.example evil.example');
  });

  it('defect: a text of many such URLs without white space is read at most twice, never once per URL', () => {
    for (const url of ['https:\\n,', 'https:\\\\n\\/', 'https:\\na\\/b\\/c,']) {
      const text = url.repeat(4000);
      expect([url, canonicalForm(text).length <= 2.2 * text.length]).toEqual([url, true]);
    }
  });

  it('control: escapes elsewhere read as before, and a URL without a backslash among its slashes is as it was', () => {
    expect(canonicalForm('{"link":"https:\\/\\/evil.example\\/pay"}')).toBe('{"link":"evil.example/pay"}');
    expect(canonicalForm('Refund to\\nbilling\\u0040evil.example')).toBe('refund to billing@evil.example');
    expect(canonicalForm('to\\vbilling@evil.example')).toBe('to billing@evil.example');
    expect(canonicalForm('C:\\new\\reports')).toBe('c: ew eports');
    expect(canonicalForm('see https://evil.example/pay and mailto:\\nbob@acme.example')).toBe(
      'see evil.example/pay and mailto: bob@acme.example',
    );
  });
});

describe('canonicalForm: the tabs and line breaks the WHATWG parser drops around a scheme’s slashes (ADR 0198)', () => {
  it('attack: a tab, LF or CR in the scheme, beside its colon or among its slashes keeps the host whole', () => {
    for (const url of [
      'https:\t\\evil-refunds.example/claim',
      'https:\n\\evil-refunds.example/claim',
      'https:/\r\\evil-refunds.example/claim',
      'ht\ttps:\\evil-refunds.example/claim',
      'https\t:\\\n\\evil-refunds.example/claim',
      'https:\n//evil-refunds.example/claim',
    ]) {
      expect(new URL(url).host).toBe('evil-refunds.example');
      expect([url, canonicalForm(`pay ${url} now`)]).toEqual([
        url,
        expect.stringMatching(/^pay evil-refunds\.example\/claim /u),
      ]);
    }
    // Escaped in a tool's JSON, decoded first: the parser's reading after the escape's.
    expect(canonicalForm('{"u":"https:\\t\\\\evil-refunds.example/claim"}')).toContain(' evil-refunds.example/claim');
  });

  it('defect: a text of many schemes and tabs without other white space grows by a bounded factor', () => {
    for (const url of ['h\tt\tt\tp\ts\t:\t\\\t', 'https:\t\\n', 'f\t\t\ti\t:']) {
      const text = url.repeat(4000);
      expect([url, canonicalForm(text).length <= 2.2 * text.length]).toEqual([url, true]);
    }
  });

  it('control: a tab or line break elsewhere still reads as a break, and a colon beside one is no scheme', () => {
    expect(canonicalForm('Pay:\thttps://evil.example/r')).toBe('pay: evil.example/r');
    expect(canonicalForm('C:\\new\\reports\tdone')).toBe('c: ew eports done');
    expect(canonicalForm('mailto:\n\\nbob@acme.example')).toBe('mailto: bob@acme.example');
    expect(canonicalForm('see https://evil.example/pay\nhttps://acme.example')).toBe(
      'see evil.example/pay acme.example',
    );
  });
});

describe('holdsAmbiguousUrlAuthority (ADR 0164)', () => {
  it('attack: a `\\` or `@` in what RFC 3986 reads as the authority, or a `\\` among the scheme slashes', () => {
    for (const url of [
      'https://files.acme.example\\%70ublic\\%64rop',
      'https://files.acme.example\\@evil.example',
      'see HTTPS://files.acme.example\\_drop now',
      'https://acme.example@evil.example/pay',
      'www.acme.example@evil.example',
      'https:\\\\evil.example',
      'https:/\\evil.example',
      // A tab or line break, which the parser drops, between the host and what follows it.
      'https://files.acme.example\t@evil.example',
      'https://files.acme.example\r\n@evil.example',
      'https:\t//files.acme.example\\@evil.example',
    ])
      expect([url, holdsAmbiguousUrlAuthority(url)]).toEqual([url, true]);
  });

  it('control: a `\\` or `@` after the authority, an e-mail address and a plain URL read alike in every parser', () => {
    for (const text of [
      'https://files.acme.example/share/team-finance',
      'https://files.acme.example/@team?to=bob@acme.example#a\\b',
      'mail billing@acme.example about https://acme.example/pay',
      'C:\\reports\\q3.pdf',
    ])
      expect([text, holdsAmbiguousUrlAuthority(text)]).toEqual([text, false]);
  });
});

describe('canonicalForm: punctuation, capitals and full stops fold as they read (ADR 0185)', () => {
  it('attack: an em dash or horizontal bar beside a value reads as a separator, not as a letter glued to it', () => {
    for (const dash of ['\u2014', '\u2015', '\u2e3a', '\ufe58'])
      expect(canonicalForm(`Write to mallory@evil.example${dash}today`)).toBe('write to mallory@evil.example today');
    expect(canonicalForm('Urgent\u2014mallory@evil.example')).toBe('urgent mallory@evil.example');
  });

  it('attack: an IBAN or a phone number grouped with em dashes reads as one value', () => {
    expect(canonicalForm('DE89\u20143704\u20140044\u20140532\u20140130\u201400')).toBe('de89370400440532013000');
    expect(canonicalForm('+1\u2014415\u2014555\u20140199')).toBe('+14155550199');
    expect(canonicalForm('DE89\u301c3704\u30a00044')).toBe(canonicalForm('DE89-3704-0044'));
  });

  it('every dash punctuation character (\\p{Pd}) of this Node is among the dashes that read as one', () => {
    const dashes: string[] = [];
    for (let point = 0x80; point <= 0x10ffff; point++)
      if ((point < 0xd800 || point > 0xdfff) && /^\p{Pd}$/u.test(String.fromCodePoint(point)))
        dashes.push(String.fromCodePoint(point));
    expect([...DASHES]).toEqual(dashes);
  });

  it('attack: no punctuation or symbol folds to a letter or digit (`‖` is not `ll`, `٪` not `o/0`)', () => {
    const table = createRequire(import.meta.url)('unhomoglyph/data.json') as Record<string, string>;
    const glued = Object.keys(table).filter(
      (character) => !/^[\p{L}\p{N}]$/u.test(character) && /[\p{L}\p{N}]/u.test(confusableSkeleton(character)),
    );
    expect(glued).toEqual([]);
    expect(canonicalForm('10\u066a\u2016x')).toBe('10\u066a\u2016x');
  });

  it('attack: a capital look-alike folds as it is spelled: Cyrillic and Greek capitals read as ASCII letters', () => {
    expect(canonicalForm('HTTPS://SECURE-\u0412AN\u041a-LOGIN.EXAMPLE/VERIFY')).toBe(
      'secure-bank-login.example/verify',
    );
    expect(canonicalForm('\u0392\u0395\u0397\u039d\u03a4\u03a5')).toBe('behnty');
    expect(canonicalForm('\u0412\u041a\u041c\u041d\u0422')).toBe('bkmht');
    // The literal form keeps a look-alike's letters, in lower case.
    expect(literalForm('SECURE-\u0412AN\u041a')).toBe('secure-\u0432an\u043a');
  });

  it('utility: a word in Cyrillic or Greek capitals reads as it does in lower case where the table allows it', () => {
    expect(canonicalForm('ВИКТОР@ПРИМЕР.РФ')).toBe(canonicalForm('виктор@пример.рф'));
    expect(canonicalForm('ΣΟΦΟΣ ΚΑΛΟΣ')).toBe(canonicalForm('σοφος καλος'));
    expect(literalForm('ΟΔΥΣΣΕΑΣ')).toBe(literalForm('οδυσσεας'));
    // A limit: a capital that looks like another ASCII letter than its lower case (`Ν` is `N`, `ν` is `v`; `Ι` is `l`, `ι` is `i`).
    expect(canonicalForm('ΝΙΚΟΣ')).not.toBe(canonicalForm('νικος'));
  });

  it('attack: an ideographic, halfwidth or small full stop in a host reads as its dot', () => {
    for (const dot of ['\u3002', '\uff61', '\ufe52']) {
      expect(canonicalForm(`https://secure-bank-login${dot}example/verify`)).toBe('secure-bank-login.example/verify');
      expect(canonicalForm(`mallory@evil${dot}example`)).toBe('mallory@evil.example');
    }
  });

  it('utility: `ß` reads `ss` and `İ` reads `i`, as full case folding has them', () => {
    expect(canonicalForm('Hauptstraße 5')).toBe(canonicalForm('HAUPTSTRASSE 5'));
    expect(canonicalForm('HAUPTSTRAẞE 5')).toBe('hauptstrasse 5');
    expect(canonicalForm('İSTANBUL')).toBe('istanbul');
    expect(literalForm('Hauptstraße')).toBe(literalForm('HAUPTSTRASSE'));
  });

  it('control: what folded before still folds: a hyphen, an en dash, fullwidth letters, Cyrillic lower case', () => {
    expect(canonicalForm('DE89\u20133704\u20130044\u20130532\u20130130\u201300')).toBe('de89370400440532013000');
    expect(canonicalForm('415\u2011555\u20110100')).toBe('4155550100');
    expect(canonicalForm('ＢＡＮＫ раураl.com')).toBe('bank paypal.com');
  });
});
