import { ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { ToolInputParsingException, type StructuredToolInterface } from '@langchain/core/tools';
import { isCanonicalJson } from '../fingerprints/canonical-json.js';
import { toolCallIdOf } from './tool-output.js';

/**
 * LangChain validates tool input before `_call`; a malformed proposal would surface as an exception
 * and skip Verdict's evidence. This routes it to `fallback` (the pipeline, which denies it at the
 * proposal stage and records that) and shapes the answer as LangChain would. Input that is not plain
 * JSON (hostile nesting, for one) never reaches LangChain's parser, whose error path would overflow
 * the stack serializing it.
 */
export function callWithMalformedInputFallback(
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
  if (!isCanonicalJson(rawInput)) return decline();
  // Every bound and guarded call comes through here: one promise for the answer, not an async function's two.
  let called: Promise<unknown>;
  try {
    called = call();
  } catch (error) {
    called = Promise.reject(error);
  }
  return called.catch((error: unknown) => {
    if (!(error instanceof ToolInputParsingException)) throw error;
    return decline();
  });
}
