import type { ZodType } from 'zod';

/**
 * A capability's argument schema: a zod schema (its output type, `z.infer`, is `TArgs`; an async refinement is
 * parsed with `safeParseAsync`), or a class-validator DTO class (its instance type is `TArgs`; the executor receives
 * a plain object of it: the properties class-validator checked, under their `@Expose` names, with no `@Transform`
 * run again, ADR 0178).
 */
export type ArgumentSchema<TArgs = unknown> = ZodType<TArgs> | (new (...args: never[]) => TArgs);

/** The arguments type a schema validates to: `z.infer<S>` for a zod schema, the instance type for a DTO class. */
export type ArgumentsOf<TSchema> =
  TSchema extends ZodType<infer TArgs> ? TArgs : TSchema extends new (...args: never[]) => infer TArgs ? TArgs : never;

/** The outcome of validating proposed arguments. `problems` name rules and path fingerprints, never values or model-written keys. */
export type ArgumentValidation<TArgs> =
  { readonly valid: true; readonly value: TArgs } | { readonly valid: false; readonly problems: string };

export function isZodSchema(schema: unknown): schema is ZodType {
  return typeof schema === 'object' && schema !== null && typeof (schema as ZodType).safeParse === 'function';
}
