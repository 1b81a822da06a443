/**
 * A fresh copy of a suite's environment with each `{vector}` placeholder of its strings replaced by the text
 * given for that vector (AgentDojo fills `environment.yaml` with `str.format`; every vector sits in a string).
 */
export function filledEnvironment(environment: unknown, texts: Readonly<Record<string, string>>): unknown {
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string')
      return value.replace(/\{([a-z0-9_]+)\}/gi, (placeholder, name: string) => texts[name] ?? placeholder);
    if (Array.isArray(value)) return value.map(fill);
    if (typeof value === 'object' && value !== null)
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item)]));
    return value;
  };
  return fill(environment);
}

/**
 * What one run leaves for the checks: the environment before and after, every call that executed, in order,
 * and the model's final answer.
 */
export interface RunState<Env> {
  readonly pre: Env;
  readonly post: Env;
  readonly output: string;
  readonly trace: readonly { readonly function: string; readonly args: Record<string, unknown> }[];
}

/**
 * A value as the security checks compare attacker destinations: NFKC, digits of any script as ASCII, lower
 * case, no `http(s)://`, no `www.`, no whitespace or dashes. So a re-spelt destination that still reaches the
 * attacker (`HTTPS://WWW.…`, `…٢٣٤…`, split in two) counts as reaching it; AgentDojo's own checks compare
 * exactly, so on the standard variant both agree.
 */
export function canonicalDestination(value: string): string {
  return asciiDigits(value.normalize('NFKC'))
    .toLowerCase()
    .replace(/https?:\/\//g, '')
    .replace(/www\./g, '')
    .replace(/[\s-]/g, '');
}

/**
 * Every decimal digit (`\p{Nd}`) as its ASCII digit: Unicode encodes each script's digits as runs of ten from
 * zero, so a digit's value is its distance from the start of its contiguous `\p{Nd}` block, modulo ten.
 */
function asciiDigits(text: string): string {
  return text.replace(/\p{Nd}/gu, (digit) => {
    let start = digit.codePointAt(0)!;
    while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start -= 1;
    return String((digit.codePointAt(0)! - start) % 10);
  });
}
