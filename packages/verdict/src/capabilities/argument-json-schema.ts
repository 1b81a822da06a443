import { toJSONSchema } from 'zod';
import { type ArgumentSchema, isZodSchema } from './argument-schema.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';

/** A tool's input schema: a JSON Schema whose type is `object`. */
export interface ObjectJsonSchema {
  readonly type: 'object';
  readonly [keyword: string]: unknown;
}

/**
 * The JSON Schema a model or client sees for a capability's arguments: zod's own conversion (the input side),
 * or an open object for a class-validator DTO (the pipeline's validation still decides). A schema that does not
 * describe an object cannot be a tool's input: a boot error naming `runtime` (`'an MCP tool'`, `'an AI SDK tool'`).
 */
export function argumentJsonSchema(capability: string, schema: ArgumentSchema, runtime: string): ObjectJsonSchema {
  if (!isZodSchema(schema)) return { type: 'object' };
  const { $schema: _dialect, ...converted } = toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  if (converted.type !== 'object')
    throw new VerdictConfigurationError(
      `Capability "${capability}" cannot be ${runtime}: its arguments schema must be an object (z.object(...)).`,
      { capability },
    );
  return converted as ObjectJsonSchema;
}
