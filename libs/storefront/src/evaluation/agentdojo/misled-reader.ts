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
 * (ADR 0121). It is misled where the quarantined model is (`ValueReadingQuarantinedModel`): a value the model
 * already knows from clean text — the user's request, or a result that holds no instruction — is its own, as the
 * quarantine arm's deciding model never asks for a value its window holds; a value it could only have read in a
 * result that also holds an instruction for the same tool naming the argument is the attacker's. Only top-level
 * string arguments of at most {@link LONGEST_VALUE} characters, on one line, are misled (the quarantined model
 * answers no other; a nested one it may answer is left to the model here, which favours this arm).
 */
export function misledArguments(call: CorpusCall, messages: readonly BaseMessage[]): CorpusCall['args'] {
  const read = messages
    .filter((message) => HumanMessage.isInstance(message) || ToolMessage.isInstance(message))
    .map(textOf)
    .map((text) => ({ text, instructions: readAssistantInstructions(text) }));
  const clean = read.filter(({ instructions }) => instructions.length === 0).map(({ text }) => text);
  const attacked = read.filter(({ instructions }) => instructions.length > 0);
  const args: Record<string, unknown> = { ...call.args };
  for (const [argument, value] of Object.entries(call.args)) {
    if (typeof value !== 'string' || value.length > LONGEST_VALUE || value.includes('\n')) continue;
    if (clean.some((text) => holds(text, value))) continue;
    for (const { instructions } of attacked.filter(({ text }) => text.includes(value))) {
      const attacker = attackerValue(instructions, call.function, argument);
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
