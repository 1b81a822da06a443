import { type FunctionTool, tool } from '@openai/agents';
import { argumentJsonSchema } from '../capabilities/argument-json-schema.js';
import type { CapabilityToolRunner } from '../runtimes/capability-tool-runner.js';

/**
 * An OpenAI Agents function tool whose execution runs one capability's full pipeline and executor, with the
 * capability's description and arguments as a non-strict JSON Schema (the pipeline validates, ADR 0004).
 *
 * Approval (`needsApproval`) is asked for the capability's `requiresConfirmation`, or for a confirmation its
 * provenance policy requires of the call, decided by Verdict receipts ({@link CapabilityToolRunner}, ADR 0090,
 * ADR 0127): a run interruption is resolved by the receipt, which survives `RunState` serialization because it
 * lives in the receipt store, not in the state. `errorFunction: null` makes a fault fail the run instead of becoming
 * a message for the model.
 */
export function agentsBoundTool(
  runner: CapabilityToolRunner,
  name: string,
  description: string | undefined,
): FunctionTool {
  const definition = runner.definition();
  const parameters = {
    additionalProperties: true,
    ...argumentJsonSchema(definition.name, definition.arguments, 'an OpenAI Agents tool'),
  };
  return tool({
    name,
    description: description ?? definition.description,
    parameters: parameters as never,
    strict: false,
    errorFunction: null,
    needsApproval: (_context, input, callId) => runner.needsApproval(input, callId ?? ''),
    execute: (input, _context, details) => runner.answer(input, details?.toolCall?.callId ?? '', details?.signal),
  }) as FunctionTool;
}
