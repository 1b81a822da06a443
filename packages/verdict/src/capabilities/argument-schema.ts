import type { ZodType } from 'zod';

/** A capability's argument schema: a zod schema, or a class-validator DTO class. */
export type ArgumentSchema<TArgs = unknown> = ZodType<TArgs> | (new (...args: never[]) => TArgs);

/** The outcome of validating proposed arguments. `problems` name rules and path fingerprints, never values or model-written keys. */
export type ArgumentValidation<TArgs> = { readonly valid: true; readonly value: TArgs } | { readonly valid: false; readonly problems: string };

export function isZodSchema(schema: unknown): schema is ZodType {
  return typeof schema === 'object' && schema !== null && typeof (schema as ZodType).safeParse === 'function';
}
