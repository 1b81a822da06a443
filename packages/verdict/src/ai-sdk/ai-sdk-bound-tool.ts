import { jsonSchema, type Tool } from 'ai';
import { argumentJsonSchema } from '../capabilities/argument-json-schema.js';
import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import type { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { ApplicationFaultError } from '../errors/application-fault.error.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { ToolKind } from '../evidence/tool-kind.js';
import type { VerdictPipeline } from '../pipeline/verdict-pipeline.js';
import { publicAnswer } from '../public-answer.js';
import type { ExecutionResult } from '../vocabulary/execution-result.js';

/** What an AI SDK tool made by `VerdictAiSdkTools.bound` runs on. */
export interface AiSdkToolBinding {
  readonly capability: string;
  /** The tool's name in the application's tool set (boot errors name it). */
  readonly name: string;
  /** Default: the capability's description. */
  readonly description: string | undefined;
  readonly pipeline: VerdictPipeline;
  readonly registry: CapabilityRegistry;
  readonly publicMessage: string;
}

/**
 * An AI SDK tool whose execution runs one capability's full pipeline and executor. Its description and input
 * schema are the capability's (read when the model is first called, after boot). Malformed input reaches the
 * pipeline, which refuses it (ADR 0004): the schema is shown to the model, never enforced by the SDK alone.
 *
 * Approval (`needsApproval`) is the capability's `requiresConfirmation`, decided by Verdict receipts: asking
 * issues a pending receipt for the tool call, and an approved call executes only when its receipt — bound to
 * these arguments, this actor, tenant and conversation — validates and is consumed, once (ADR 0089).
 */
export function aiSdkBoundTool(binding: AiSdkToolBinding): Tool<unknown, string> {
  const { capability, name, pipeline, publicMessage } = binding;
  const definition = (): CapabilityDefinition => {
    const found = binding.registry.find(capability);
    if (found === undefined)
      throw new VerdictConfigurationError(
        `AI SDK tool "${name}" is bound to unknown capability "${capability}". Declare it with @Capability or defineCapability.`,
        { capability },
      );
    return found;
  };
  const confirms = () => definition().requiresConfirmation !== undefined;
  /** Runs the pipeline; any fault fails the generation as an ApplicationFaultError (never model-facing text). */
  const run = async (
    input: unknown,
    toolCallId: string,
    explicitApproval: boolean,
    signal: AbortSignal | undefined,
  ): Promise<ExecutionResult> => {
    try {
      const proposal = { capability, arguments: input, toolCallId };
      return await pipeline.execute(proposal, ToolKind.Bound, { explicitApproval });
    } catch (error) {
      if (signal?.aborted === true) throw error;
      throw new ApplicationFaultError(capability, name, error);
    }
  };
  return {
    type: 'function',
    get description() {
      return binding.description ?? definition().description;
    },
    get inputSchema() {
      return jsonSchema<unknown>(argumentJsonSchema(capability, definition().arguments, 'an AI SDK tool'));
    },
    // A call asks for approval when Verdict issued (or holds) a receipt awaiting a human for it; a refusal
    // asks no one, and the execution answers it.
    needsApproval: async (input: unknown, { toolCallId }: { toolCallId: string }) => {
      if (!confirms()) return false;
      const asked = await run(input, toolCallId, false, undefined);
      return !asked.executed && asked.challenge !== undefined;
    },
    // The SDK executes a call of a confirming capability only once it was approved (or needed no approval
    // because Verdict refused it): the receipt decides whether it runs.
    execute: async (input: unknown, { toolCallId, abortSignal }: { toolCallId: string; abortSignal?: AbortSignal }) =>
      publicAnswer(await run(input, toolCallId, confirms(), abortSignal), publicMessage),
  } as Tool<unknown, string>;
}
