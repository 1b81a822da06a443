import { type AssistantInstruction, readAssistantInstructions } from '@verdict/nestjs/testing';
import { HumanMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { CorpusCall } from './agentdojo-corpus.js';

/** The longest value a reader copies: an identifier, an address, a date, a name — not a message. */
export const LONGEST_VALUE = 200;

/**
 * What a reader misled by the attack text answers for one argument of a call to `tool`: the value an instruction
 * for the same tool gives that argument (the recipient, the URL, …), cut to one line of at most
 * {@link LONGEST_VALUE} characters; `undefined` when no instruction names it.
 */
export function attackerValue(
  instructions: readonly AssistantInstruction[],
  tool: string,
  argument: string,
): string | undefined {
  const value = instructions
    .filter((instruction) => instruction.tool === tool)
    .map((instruction) => instruction.args[argument])
    .find((v) => typeof v === 'string');
  return typeof value === 'string' ? value.replace(/\n/g, ' ').slice(0, LONGEST_VALUE) : undefined;
}

/**
 * The arguments a deciding model that reads untrusted results itself (every arm but the quarantine) gives a
 * ground-truth call against the adaptive attacker, who writes its instruction about whatever the reader looks for
 * (ADR 0121): each top-level string argument whose value the model could only have read in a tool result (the
 * user's request does not hold it) takes the attacker's value when that result also holds an instruction for the
 * same tool naming the argument. The same reading misleads the quarantined model (`ValueReadingQuarantinedModel`).
 */
export function misledArguments(call: CorpusCall, messages: readonly BaseMessage[]): CorpusCall['args'] {
  const request = messages.filter((message) => HumanMessage.isInstance(message)).map(textOf);
  const results = messages.filter((message) => ToolMessage.isInstance(message)).map(textOf);
  const args: Record<string, unknown> = { ...call.args };
  for (const [argument, value] of Object.entries(call.args)) {
    if (typeof value !== 'string' || value.includes('\n') || request.some((text) => holds(text, value))) continue;
    for (const result of results.filter((text) => text.includes(value))) {
      const attacker = attackerValue(readAssistantInstructions(result), call.function, argument);
      if (attacker === undefined) continue;
      args[argument] = attacker;
      break;
    }
  }
  return args as CorpusCall['args'];
}

/** A message's text: its content as it is, or as JSON when it is made of blocks. */
export function textOf(message: BaseMessage): string {
  return typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
}

/**
 * Whether `text` holds `value` as a whole (not inside a longer word or number): the event id `24` is not in the
 * date `2024-05-15` the user typed, and a model that read the date does not know the id.
 */
export function holds(text: string, value: string): boolean {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, 'u').test(text);
}
