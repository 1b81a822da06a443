import { ToolInputParsingException, type StructuredToolInterface } from '@langchain/core/tools';
import { ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { assertCanonicalJson } from '../fingerprints/canonical-json.js';

/** The tool-call id LangChain attaches to the config when a tool is invoked with a ToolCall. */
export function toolCallIdOf(config: RunnableConfig | undefined): string | undefined {
  const id = (config as { toolCall?: { id?: unknown } } | undefined)?.toolCall?.id;
  return typeof id === 'string' ? id : undefined;
}

/** Executor output as tool content: strings as they are, everything else as JSON. */
export function toToolContent(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output ?? null);
}

function isPlainJson(value: unknown): boolean {
  try {
    assertCanonicalJson(value);
    return true;
  } catch (error) {
    if (error instanceof NonCanonicalValueError) return false;
    throw error;
  }
}

/**
 * LangChain validates tool input before `_call`; a malformed proposal would surface as an exception
 * and skip Verdict's evidence. This routes it to `fallback` (the pipeline, which denies it at the
 * proposal stage and records that) and shapes the answer as LangChain would. Input that is not plain
 * JSON (hostile nesting, for one) never reaches LangChain's parser, whose error path would overflow
 * the stack serializing it.
 */
export async function callWithMalformedInputFallback(
  tool: StructuredToolInterface,
  call: () => Promise<unknown>,
  rawInput: unknown,
  config: RunnableConfig | undefined,
  fallback: (raw: unknown, toolCallId: string | undefined) => Promise<string>,
): Promise<unknown> {
  const decline = async () => {
    const toolCallId = toolCallIdOf(config);
    const content = await fallback(rawInput, toolCallId);
    return toolCallId === undefined ? content : new ToolMessage({ content, tool_call_id: toolCallId, name: tool.name });
  };
  if (!isPlainJson(rawInput)) return decline();
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ToolInputParsingException)) throw error;
    return decline();
  }
}
