import { jsonSchema, type Tool } from 'ai';
import { argumentJsonSchema } from '../capabilities/argument-json-schema.js';
import type { CapabilityToolRunner } from '../runtimes/capability-tool-runner.js';

/**
 * An AI SDK tool whose execution runs one capability's full pipeline and executor. Its description and input
 * schema are the capability's (read when the model is first called, after boot). Malformed input reaches the
 * pipeline, which refuses it (ADR 0004): the schema is shown to the model, never enforced by the SDK alone.
 *
 * Approval (`needsApproval`) is asked for the capability's `requiresConfirmation`, or for a confirmation its
 * provenance policy requires of the call, decided by Verdict receipts ({@link CapabilityToolRunner}, ADR 0089,
 * ADR 0127). A fault rejects the generation: the SDK turns a tool's error into text for the model, and an
 * `ApplicationFaultError` refuses to become text.
 */
export function aiSdkBoundTool(runner: CapabilityToolRunner, description: string | undefined): Tool<unknown, string> {
  return {
    type: 'function',
    get description() {
      return description ?? runner.definition().description;
    },
    get inputSchema() {
      const { name, arguments: schema } = runner.definition();
      return jsonSchema<unknown>(argumentJsonSchema(name, schema, 'an AI SDK tool'));
    },
    needsApproval: (input: unknown, { toolCallId }: { toolCallId: string }) => runner.needsApproval(input, toolCallId),
    execute: (input: unknown, { toolCallId, abortSignal }: { toolCallId: string; abortSignal?: AbortSignal }) =>
      runner.answer(input, toolCallId, abortSignal),
  } as Tool<unknown, string>;
}
