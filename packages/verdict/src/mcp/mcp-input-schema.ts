import { toJSONSchema } from 'zod';
import { type ArgumentSchema, isZodSchema } from '../capabilities/argument-schema.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';

/** A tool's `inputSchema`: a JSON Schema whose type is `object`. */
export interface McpInputSchema {
  readonly type: 'object';
  readonly [keyword: string]: unknown;
}

/**
 * The JSON Schema MCP clients see for a capability's arguments: zod's own conversion (the input side), or an
 * open object for a class-validator DTO (the pipeline's validation still decides). A schema that does not
 * describe an object cannot be an MCP tool's input: a boot error.
 */
export function mcpInputSchema(capability: string, schema: ArgumentSchema): McpInputSchema {
  if (!isZodSchema(schema)) return { type: 'object' };
  const { $schema: _dialect, ...converted } = toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  if (converted.type !== 'object')
    throw new VerdictConfigurationError(
      `Capability "${capability}" cannot be an MCP tool: its arguments schema must be an object (z.object(...)).`,
      { capability },
    );
  return converted as McpInputSchema;
}
