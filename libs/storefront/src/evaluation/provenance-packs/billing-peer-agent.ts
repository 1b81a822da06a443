import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { type AgentMiddleware, createAgent } from 'langchain';
import { PackTool } from './pack-tools.js';

/**
 * The billing agent a delegating scenario asks: a real `createAgent` loop of its own that reads ticket t-1 and
 * answers with the ticket's text quoted — so whatever the ticket's sender wrote reaches the asking agent
 * through a peer's answer. With the provenance tracker its answer is labelled `agent:billing`, derived from an
 * untrusted window.
 */
export async function askBillingPeer(
  readTicket: StructuredToolInterface,
  middleware: AgentMiddleware[],
): Promise<string> {
  const model = new ScriptedChatModel([
    { toolCalls: [{ name: PackTool.ReadTicket, args: { ticketId: 't-1' }, id: 'peer_read' }] },
    (messages) => ({ text: `Billing notes on ticket t-1:\n${ticketBody(messages.at(-1))}` }),
  ]);
  const agent = createAgent({ model, tools: [readTicket], middleware });
  const state = await agent.invoke({ messages: [new HumanMessage('What does ticket t-1 ask billing for?')] });
  return String(state.messages.at(-1)!.content);
}

function ticketBody(message: BaseMessage | undefined): string {
  const ticket = JSON.parse(String(message?.content)) as { body?: unknown };
  if (typeof ticket.body !== 'string') throw new Error('the billing peer read no ticket');
  return ticket.body;
}
