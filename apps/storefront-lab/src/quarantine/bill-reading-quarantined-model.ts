import type { QuarantineChatModel, QuarantinePromptMessage } from '@verdict/nestjs';
import { readAssistantInstructions } from '@verdict/nestjs/testing';
import { PAY_BILL_TOOL, fileTextOf, readBillLines } from './bill-file.js';

/**
 * The lab's quarantined model, a scripted stand-in with no tools: it answers the bill's own lines (`Payee:`,
 * `IBAN:`, `Amount due:`). When the lab sets it `misled`, it also obeys an instruction line of the document
 * that asks for the payment with other values (as a manipulated model would): those values become its answer —
 * well-typed, and still the attacker's.
 */
export class BillReadingQuarantinedModel implements QuarantineChatModel {
  /** Whether the next extractions follow the document's instruction lines. */
  misled = false;
  /** How many documents it read: each is one extra model call. */
  calls = 0;

  async invoke(input: QuarantinePromptMessage[]): Promise<{ readonly content: string }> {
    this.calls += 1;
    const human = input.find(([role]) => role === 'human')?.[1] ?? '';
    const document = fileTextOf(human.slice(human.indexOf('Document:\n') + 'Document:\n'.length));
    const bill = readBillLines(document);
    if (bill === null) return { content: 'The document holds no bill.' };
    const injected = this.misled
      ? readAssistantInstructions(document).find((instruction) => instruction.tool === PAY_BILL_TOOL.name)?.args
      : undefined;
    const pick = <K extends keyof typeof bill>(key: K) =>
      typeof injected?.[key] === typeof bill[key] ? (injected![key] as (typeof bill)[K]) : bill[key];
    return { content: JSON.stringify({ payee: pick('payee'), iban: pick('iban'), amountCents: pick('amountCents') }) };
  }
}
