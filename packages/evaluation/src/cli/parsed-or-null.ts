/** A file's JSON value, or `null` when it is not JSON (the report's own parser then says what is wrong). */
export function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
