import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { type LiveProvider, ProviderErrorClass, providerErrorClassOf } from '@verdict/evaluation/live';

/** One tool call the live model proposed: the tool and its arguments (the provider's call id is not kept). */
export interface LiveToolCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** What asking the live model gave: the proposal (every turn up to it), no proposal, or a provider error. */
export type LiveProposal =
  | {
      readonly kind: 'proposed';
      /** The proposal: the model's first call of `proposalTool`. */
      readonly call: LiveToolCall;
      /** Every turn of tool calls up to and including the proposal's, to replay. */
      readonly turns: readonly (readonly LiveToolCall[])[];
    }
  | { readonly kind: 'not_proposed'; readonly answer: string; readonly proposedTools: readonly string[] }
  | { readonly kind: 'provider_error'; readonly errorClass: ProviderErrorClass };

/** What the live model is asked: the conversation, the tools it sees, the call the lab waits for, the reads it may make. */
export interface LiveProposalRequest {
  readonly systemPrompt: string;
  readonly userMessage: string;
  /** The tools the model is offered (definitions: only their names, descriptions and schemas are sent). */
  readonly tools: readonly StructuredToolInterface[];
  /** The tool whose call is the proposal the comparison replays. */
  readonly proposalTool: string;
  /** Read-only tools the model may call on the way (their results go back to it); nothing else is executed. */
  readonly reads: Readonly<Record<string, (args: Record<string, unknown>) => Promise<string>>>;
  /** Model turns before the lab gives up waiting for the proposal. */
  readonly maxTurns?: number;
}

/**
 * Asks the configured chat model (a fresh one from {@link LiveProvider.createChatModel}) for the next step,
 * turn by turn, until it proposes `proposalTool`. Read tools run on the way; the proposal itself never runs
 * here: the comparison replays it through each path. A provider failure (after the client's retries) or a
 * tool call whose arguments are not JSON is a provider error, classed as live trials class it; anything else
 * thrown is an application fault and propagates.
 */
export async function askLiveModel(provider: LiveProvider, request: LiveProposalRequest): Promise<LiveProposal> {
  const model = await provider.createChatModel();
  if (model.bindTools === undefined) throw new TypeError(`the ${provider.kind} chat model cannot bind tools`);
  const withTools = model.bindTools([...request.tools]);
  const messages: BaseMessage[] = [new SystemMessage(request.systemPrompt), new HumanMessage(request.userMessage)];
  const turns: LiveToolCall[][] = [];
  for (let turn = 0; turn < (request.maxTurns ?? 3); turn++) {
    let reply: AIMessage;
    try {
      reply = (await withTools.invoke(messages)) as AIMessage;
    } catch (thrown) {
      const errorClass = providerErrorClassOf(thrown);
      if (errorClass === null) throw thrown;
      return { kind: 'provider_error', errorClass };
    }
    if ((reply.invalid_tool_calls ?? []).length > 0)
      return { kind: 'provider_error', errorClass: ProviderErrorClass.MalformedToolCall };
    const calls = reply.tool_calls ?? [];
    if (calls.length === 0)
      return { kind: 'not_proposed', answer: textOf(reply.content), proposedTools: turns.flat().map((c) => c.name) };
    const proposed = calls.map((call) => ({ name: call.name, args: { ...call.args } }));
    turns.push(proposed);
    const call = proposed.find((candidate) => candidate.name === request.proposalTool);
    if (call !== undefined) return { kind: 'proposed', call, turns };
    messages.push(reply);
    for (const call of calls) {
      const read = Object.hasOwn(request.reads, call.name) ? request.reads[call.name] : undefined;
      const content = read === undefined ? `There is no tool ${call.name}.` : await read({ ...call.args });
      messages.push(new ToolMessage({ content, tool_call_id: call.id ?? call.name }));
    }
  }
  return { kind: 'not_proposed', answer: '', proposedTools: turns.flat().map((call) => call.name) };
}

function textOf(content: BaseMessage['content']): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}
