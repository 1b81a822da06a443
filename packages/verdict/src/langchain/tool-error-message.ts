import { ToolInputParsingException } from '@langchain/core/tools';
import { MiddlewareError, ToolInvocationError } from 'langchain';

/**
 * The error of a tool call that LangChain's ToolNode answers the model with, when it came out of a `wrapToolCall`
 * hook: the `ToolInvocationError` at the root of its `MiddlewareError` chain, whose message holds the call's
 * arguments and the stack of what the tool threw — however that got there (the tool's own arguments failing its
 * schema, a nested `tool.invoke` in its body, a tool that threw one itself). `undefined` for any other error, which
 * the ToolNode rethrows: it fails the run.
 */
export function toolErrorMessageOf(error: unknown): ToolInvocationError | undefined {
  let root = error;
  while (MiddlewareError.isInstance(root)) root = root.cause;
  return ToolInvocationError.isInstance(root) ? root : undefined;
}

/**
 * Whether `error` is the model's own arguments of `call` failing the called tool's schema: LangChain's parser
 * rejected exactly those arguments, for that very call (its text is the model's arguments and the application's
 * schema). Anything else — what a tool's body threw, a nested call on other input — is the tool's.
 */
export function isOwnArgumentsRejected(
  error: ToolInvocationError,
  call: { readonly name: string; readonly args: unknown },
): boolean {
  const args = JSON.stringify(call.args);
  const parsing = error.toolError;
  return (
    parsing instanceof ToolInputParsingException &&
    parsing.output === args &&
    error.toolCall.name === call.name &&
    JSON.stringify(error.toolCall.args) === args
  );
}
