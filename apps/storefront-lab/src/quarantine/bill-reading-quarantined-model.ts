import type { QuarantineChatModel, QuarantinePromptMessage } from '@verdict/nestjs';
import { readAssistantInstructions } from '@verdict/nestjs/testing';
import { LAB_QUARANTINE_MAX_TOKENS, LAB_QUARANTINE_MODEL, providerTokens } from '../budgets/lab-model-budgets.js';
import { PAY_BILL_TOOL, fileTextOf, readBillLines } from './bill-file.js';

/** The answer's usage, as a provider reports it on a LangChain answer (`usage_metadata`). */
interface ReportedUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly total_tokens: number;
}

/**
 * The lab's quarantined model, a scripted stand-in with no tools: it answers the bill's own lines (`Payee:`,
 * `IBAN:`, `Amount due:`). When the lab sets it `misled`, it also obeys an instruction line of the document
 * that asks for the payment with other values (as a manipulated model would): those values become its answer —
 * well-typed, and still the attacker's. Like a provider's chat model it names itself and its maximum output
 * (`getLsParams`) and reports usage, so the lab's model budgets count each reading (`LAB_MODEL_BUDGETS`).
 */
export class BillReadingQuarantinedModel implements QuarantineChatModel {
  /** Whether the next extractions follow the document's instruction lines. */
  misled = false;
  /** How many documents it read: each is one extra model call. */
  calls = 0;

  /** LangChain's tracing facts, as a provider's chat model reports its `model` and `maxTokens`. */
  getLsParams(): { ls_model_name: string; ls_max_tokens: number } {
    return { ls_model_name: LAB_QUARANTINE_MODEL, ls_max_tokens: LAB_QUARANTINE_MAX_TOKENS };
  }

  async invoke(
    input: QuarantinePromptMessage[],
  ): Promise<{ readonly content: string; readonly usage_metadata: ReportedUsage }> {
    this.calls += 1;
    const content = this.answer(input);
    const inputTokens = providerTokens(input.map(([, text]) => text).join('')) + 8;
    const outputTokens = providerTokens(content);
    return {
      content,
      usage_metadata: {
        input_tokens: inputTokens,
        output_tokens: outputTokens,
        total_tokens: inputTokens + outputTokens,
      },
    };
  }

  private answer(input: QuarantinePromptMessage[]): string {
    const human = input.find(([role]) => role === 'human')?.[1] ?? '';
    const document = fileTextOf(human.slice(human.indexOf('Document:\n') + 'Document:\n'.length));
    const bill = readBillLines(document);
    if (bill === null) return 'The document holds no bill.';
    const injected = this.misled
      ? readAssistantInstructions(document).find((instruction) => instruction.tool === PAY_BILL_TOOL.name)?.args
      : undefined;
    const pick = <K extends keyof typeof bill>(key: K) =>
      typeof injected?.[key] === typeof bill[key] ? (injected![key] as (typeof bill)[K]) : bill[key];
    return JSON.stringify({ payee: pick('payee'), iban: pick('iban'), amountCents: pick('amountCents') });
  }
}
