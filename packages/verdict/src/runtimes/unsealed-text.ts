import { hidesEncodedData, isJsonDocument, isPlainText } from './structured-text.js';

/**
 * Whether a user's unsealed text blocks may reach the model (ADR 0011, 0013): none of them — nor their
 * concatenation — hides encoded data (TAG characters outside a flag, runs of variation selectors) or is a JSON
 * object or array once invisible characters are removed. Structured data goes through a release.
 */
export function admitsUserText(texts: readonly string[]): boolean {
  const all = [...texts, texts.join('')];
  return !all.some(hidesEncodedData) && !all.some(isJsonDocument);
}

/** Whether unsealed model text is plain prose (ADR 0013): every block, and their concatenation, plain text. */
export function isPlainProse(texts: readonly string[]): boolean {
  return [...texts, texts.join('')].every(isPlainText);
}

/**
 * Whether a message's extra fields (LangChain `additional_kwargs`, AI SDK `providerOptions` entries) hold nothing
 * a provider could send as data: no object, array or text that is not plain.
 */
export function carriesNoData(values: Iterable<unknown>): boolean {
  for (const value of values)
    if (!(
      value === null ||
      value === undefined ||
      typeof value === 'boolean' ||
      typeof value === 'number' ||
      (typeof value === 'string' && isPlainText(value))
    ))
      return false;
  return true;
}
