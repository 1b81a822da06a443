/**
 * JSON text laid out as the harness's Python serialiser writes it (`json.dumps(..., ensure_ascii=False)`): `", "`
 * between items, `": "` after keys, non-ASCII characters kept as they are. Substring checks over this text match
 * the harness's, including markers that span a key and its value.
 */
export function harnessJsonText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(harnessJsonText).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${harnessJsonText(item)}`)
      .join(', ')}}`;
  }
  // Strings, finite numbers, booleans and null: JSON.stringify escapes strings exactly as Python does without
  // ensure_ascii (quote, backslash and control characters only).
  return JSON.stringify(value) ?? 'null';
}
