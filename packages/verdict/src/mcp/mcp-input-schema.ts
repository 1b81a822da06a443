import type { ArgumentSchema } from '../capabilities/argument-schema.js';
import { argumentJsonSchema, type ObjectJsonSchema } from '../capabilities/argument-json-schema.js';

/** A tool's `inputSchema`: a JSON Schema whose type is `object`. */
export type McpInputSchema = ObjectJsonSchema;

/**
 * The JSON Schema MCP clients see for a capability's arguments: zod's own conversion (the input side), or an
 * open object for a class-validator DTO (the pipeline's validation still decides). A schema that does not
 * describe an object cannot be an MCP tool's input: a boot error.
 */
export function mcpInputSchema(capability: string, schema: ArgumentSchema): McpInputSchema {
  return argumentJsonSchema(capability, schema, 'an MCP tool');
}
