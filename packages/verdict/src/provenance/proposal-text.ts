import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { canonicalJson } from '../fingerprints/canonical-json.js';

/**
 * The text of a tool call's arguments as a window holds it: the canonical JSON (RFC 8785) of their JSON form, so the
 * call reads the same whether a runtime hands its arguments over as parsed objects (of any prototype) or as the
 * model's text. Text that is not JSON stays as it is; arguments JSON cannot write are read as no text.
 */
export function proposalText(input: unknown): string {
  if (typeof input === 'string') return input;
  let json: string | undefined;
  try {
    json = JSON.stringify(input);
  } catch {
    return '';
  }
  if (json === undefined) return '';
  try {
    return canonicalJson(JSON.parse(json));
  } catch (error) {
    if (!(error instanceof NonCanonicalValueError)) throw error;
    return json;
  }
}
