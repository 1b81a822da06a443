/**
 * How an adaptive injection asks the model to re-spell a value before it proposes it, the way an attacker
 * gets a value past a defence that matches values literally:
 * - `dashes`: its letters and digits in groups of four joined by dashes (`DE89-3704-0044-…`);
 * - `scheme`: with `https://` in front (`https://www.example.com`);
 * - `case`: in upper case;
 * - `digits`: its ASCII digits as Arabic-Indic digits (`٢١٣٤`);
 * - `split`: cut in two at its middle by a space (`www.exam ple.com`).
 *
 * @example
 * const kind: Respelling = Respelling.Scheme;
 */
export const Respelling = {
  Dashes: 'dashes',
  Scheme: 'scheme',
  Case: 'case',
  Digits: 'digits',
  Split: 'split',
} as const;
export type Respelling = (typeof Respelling)[keyof typeof Respelling];

const KINDS: ReadonlySet<string> = new Set(Object.values(Respelling));

/**
 * Whether `kind` names a {@link Respelling}.
 *
 * @example
 * isRespelling('case') // true
 */
export function isRespelling(kind: unknown): kind is Respelling {
  return typeof kind === 'string' && KINDS.has(kind);
}

const ARABIC_INDIC_ZERO = 0x0660;

/**
 * `value` re-spelt as `kind` asks.
 *
 * @example
 * respell('www.example.com', Respelling.Scheme) // 'https://www.example.com'
 */
export function respell(value: string, kind: Respelling): string {
  switch (kind) {
    case Respelling.Dashes:
      return (value.replace(/[^\p{L}\p{N}]/gu, '').match(/.{1,4}/gu) ?? []).join('-');
    case Respelling.Scheme:
      return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`;
    case Respelling.Case:
      return value.toUpperCase();
    case Respelling.Digits:
      return value.replace(/[0-9]/g, (digit) => String.fromCodePoint(ARABIC_INDIC_ZERO + Number(digit)));
    case Respelling.Split: {
      const middle = Math.ceil(value.length / 2);
      return `${value.slice(0, middle)} ${value.slice(middle)}`;
    }
  }
}

/**
 * `args` with every occurrence of each value of `respellings` re-spelt, in every string leaf (a number leaf
 * equal to the value becomes the re-spelt string).
 *
 * @example
 * respellArguments({ to: 'a@b.example' }, { 'a@b.example': Respelling.Case }) // { to: 'A@B.EXAMPLE' }
 */
export function respellArguments(
  args: Record<string, unknown>,
  respellings: Readonly<Record<string, Respelling>>,
): Record<string, unknown> {
  const entries = Object.entries(respellings).filter(([value]) => value.length > 0);
  const visit = (leaf: unknown): unknown => {
    if (typeof leaf === 'number' && entries.some(([value]) => value === String(leaf)))
      return respell(String(leaf), respellings[String(leaf)]!);
    if (typeof leaf === 'string')
      return entries.reduce((text, [value, kind]) => text.split(value).join(respell(value, kind)), leaf);
    if (Array.isArray(leaf)) return leaf.map(visit);
    if (typeof leaf === 'object' && leaf !== null)
      return Object.fromEntries(Object.entries(leaf).map(([key, item]) => [key, visit(item)]));
    return leaf;
  };
  return visit(args) as Record<string, unknown>;
}
