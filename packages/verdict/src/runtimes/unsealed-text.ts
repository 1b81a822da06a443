import { isPlainObject } from '../shared/is-plain-object.js';
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

/** A control token: a short identifier-like string (`enabled`, `reasoning.encrypted_content`) — no space, `@` or `/`. */
const CONTROL_TOKEN = /^[A-Za-z0-9_.:-]{1,64}$/u;

/** How deep a control option's records and arrays may nest (`{ thinking: { type: 'enabled' } }` is one). */
const CONTROL_DEPTH = 3;

/**
 * Whether provider or control options (an AI SDK provider's options, an Agents model's `providerData` fields) hold
 * nothing a provider could send as data (ADR 0132): each a scalar or plain text, as {@link carriesNoData} allows, or a
 * record or array — nested at most three deep — whose names are control tokens and whose leaves are numbers,
 * booleans, null or control tokens. `thinking: { type: 'enabled', budgetTokens: 1024 }` passes;
 * `metadata: { email: 'ada@example.org' }`, or a record holding prose, a URL or JSON, does not.
 */
export function controlsCarryNoData(values: Iterable<unknown>): boolean {
  for (const value of values)
    if (typeof value === 'object' && value !== null ? !isControlRecord(value, CONTROL_DEPTH) : !carriesNoData([value]))
      return false;
  return true;
}

/** Whether a record or array nests at most `depth` deep, with control-token names and control leaves. */
function isControlRecord(value: object, depth: number): boolean {
  if (depth === 0) return false;
  if (Array.isArray(value)) return value.every((item) => isControlLeaf(item, depth));
  if (!isPlainObject(value)) return false;
  return Object.entries(value).every(([name, item]) => CONTROL_TOKEN.test(name) && isControlLeaf(item, depth));
}

function isControlLeaf(value: unknown, depth: number): boolean {
  if (typeof value === 'object' && value !== null) return isControlRecord(value, depth - 1);
  if (typeof value === 'string') return CONTROL_TOKEN.test(value);
  return value === null || value === undefined || typeof value === 'boolean' || Number.isFinite(value);
}
