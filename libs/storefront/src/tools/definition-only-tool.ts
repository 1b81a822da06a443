import { tool } from '@langchain/core/tools';
import type { z } from 'zod';

/**
 * A tool that exists only to give Verdict a model-facing name, description and schema: its own handler
 * refuses to run, so an unbound copy handed to an agent fails loudly instead of acting unguarded.
 */
export function definitionOnlyTool<T extends z.ZodObject>(
  definition: { readonly name: string; readonly description: string },
  schema: T,
) {
  return tool(
    async () => {
      throw new Error(`${definition.name} is a definition-only tool: bind it with VerdictTools.bound(...)`);
    },
    { ...definition, schema },
  );
}
