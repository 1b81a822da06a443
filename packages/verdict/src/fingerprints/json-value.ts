/** A plain JSON value: the only thing Verdict fingerprints. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A plain JSON object. */
export type JsonObject = { [key: string]: JsonValue };
